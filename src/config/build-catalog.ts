/**
 * The catalog as the gateway serves it: the base catalog (the spec's models unless
 * `catalog.spec: false`, and the vendor models of the platforms configured upstreams and providers
 * serve), the file's models added or overriding (model-routing.ts), its aliases, and each model's
 * routing (deployments, fallbacks, timers; fallback cycles refused).
 */
import type { FamilyId } from '../ir/index.ts';
import { isSpecModel, type ModelEntry } from './catalog.ts';
import type { Settings } from './file-schema.ts';
import { buildAliases, buildCatalog, buildRouting, type ModelRouting } from './model-routing.ts';
import { checkProviderReferences, type ProviderConfig } from './providers-schema.ts';
import { activePlatforms, providerPlatforms, type ConfiguredUpstream } from './upstream-presence.ts';
import { baseCatalog, vendorModel, type VendorPlatform } from './vendor-catalog.ts';

export interface BuiltCatalog {
  models: ModelEntry[];
  /** alias → catalog name. */
  aliases: Record<string, string>;
  /** Deployments, fallbacks and timeouts per catalog model (only the configured ones). */
  routing: Record<string, ModelRouting>;
}

export function buildModelCatalog(
  settings: Pick<Settings, 'models' | 'aliases' | 'catalog' | 'timeouts'>,
  upstreams: Readonly<Record<FamilyId, ConfiguredUpstream>>,
  providers: Readonly<Record<string, ProviderConfig>>,
): BuiltCatalog {
  checkProviderReferences(providers, settings.models);
  const base = throughProviders(
    baseCatalog({ spec: settings.catalog.spec, platforms: activePlatforms({ upstreams, providers }) }),
    providerPlatforms({ providers }),
  );
  const models = buildCatalog(settings.models, withoutAliased(base, settings));
  const aliases = buildAliases(settings, models);
  const routing = buildRouting(settings.models, models, aliases, settings.timeouts);
  return { models, aliases, routing };
}

/** A vendor model of a platform a named provider serves goes through that provider (`provider:`). */
function throughProviders(base: ModelEntry[], served: Map<VendorPlatform, string>): ModelEntry[] {
  if (served.size === 0) return base;
  return base.map((entry) => {
    const platform = vendorModel(entry.name)?.platform;
    const provider = platform === undefined ? undefined : served.get(platform);
    return provider === undefined ? entry : { ...entry, provider };
  });
}

/**
 * An alias the file gives a vendor model's name (`gpt-4o: A-2`, written before OpenAI's models were
 * offered) says what the operator wants that name to be: the vendor model gives way rather than the
 * start failing. The spec's names stay refused as aliases, as always.
 */
function withoutAliased(
  base: ModelEntry[],
  settings: Pick<Settings, 'models' | 'aliases' | 'catalog'>,
): ModelEntry[] {
  const aliases = new Set([
    ...Object.keys(settings.aliases),
    ...settings.models.flatMap((model) => model.aliases),
  ]);
  return base.filter(
    (entry) => !aliases.has(entry.name) || (settings.catalog.spec && isSpecModel(entry.name)),
  );
}
