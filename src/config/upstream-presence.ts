/**
 * Which real upstreams the configuration names, and what follows from that: the vendor platforms
 * whose models the catalog offers (`activePlatforms`), whether the built-in simulator is the
 * offline default (`hasRealUpstream`: no real upstream at all), and, per model, the setting that is
 * missing when nothing real serves it and the simulator is off (`missingUpstream`). One place to
 * extend when another kind of upstream (a cloud provider) is configured.
 */
import { familyCodec, familyCodecs } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import type { ModelEntry } from './catalog.ts';
import type { UpstreamSection } from './file-schema.ts';
import type { ModelRouting } from './model-routing.ts';
import type { ProviderConfig } from './providers-schema.ts';
import { firstPartyPlatform, type VendorPlatform } from './vendor-catalog.ts';

/** A family's upstream as far as presence goes: its base URL, set or not. */
export type ConfiguredUpstream = Pick<UpstreamSection, 'baseUrl'>;

/** The parts of the configuration that say what is served where (`Config` has them all). */
interface UpstreamFacts {
  upstreams: Readonly<Record<FamilyId, ConfiguredUpstream>>;
  providers: Readonly<Record<string, ProviderConfig>>;
  models: readonly ModelEntry[];
  routing: Readonly<Record<string, ModelRouting>>;
  simulator: { readonly enabled: boolean };
}

/**
 * The vendor platforms a real upstream is configured for: a family's base URL set means the
 * vendor's own API of that family (alpha → OpenAI, beta → Anthropic, gamma → Google).
 */
export function activePlatforms(config: Pick<UpstreamFacts, 'upstreams' | 'providers'>): VendorPlatform[] {
  const platforms = new Set<VendorPlatform>(providerPlatforms(config).keys());
  for (const [family, upstream] of Object.entries(config.upstreams)) {
    if (upstream.baseUrl === undefined) continue;
    const platform = firstPartyPlatform(family);
    if (platform !== undefined) platforms.add(platform);
  }
  return [...platforms];
}

/** The platform whose catalog ids each provider preset takes. */
const presetPlatforms: Readonly<Record<string, VendorPlatform>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'azure-openai': 'azure',
  bedrock: 'bedrock',
  vertex: 'vertex',
};

/**
 * The platforms named providers serve, each with the provider its vendor models go through (the
 * first configured one of that preset; another is reached by naming it on a model or deployment).
 */
export function providerPlatforms(config: Pick<UpstreamFacts, 'providers'>): Map<VendorPlatform, string> {
  const platforms = new Map<VendorPlatform, string>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const platform = presetPlatforms[provider.preset];
    if (platform !== undefined && !platforms.has(platform)) platforms.set(platform, name);
  }
  return platforms;
}

/** Any real upstream anywhere: a named provider, a family's base URL, a model's own, or a deployment's. */
export function hasRealUpstream(
  config: Pick<UpstreamFacts, 'upstreams' | 'models' | 'routing' | 'providers'>,
): boolean {
  return (
    Object.keys(config.providers).length > 0 ||
    config.models.some((entry) => entry.provider !== undefined) ||
    Object.values(config.upstreams).some((upstream) => upstream.baseUrl !== undefined) ||
    config.models.some((entry) => entry.baseUrl !== undefined) ||
    Object.values(config.routing).some((routing) =>
      routing.deployments.some((deployment) => deployment.baseUrl !== undefined),
    )
  );
}

/** A deployment of `family` with its own base URL or provider (or none) reaches a real upstream. */
export function reachesRealUpstream(
  config: Pick<UpstreamFacts, 'upstreams'>,
  family: FamilyId,
  baseUrl: string | undefined,
  provider?: string,
): boolean {
  return provider !== undefined || baseUrl !== undefined || config.upstreams[family]?.baseUrl !== undefined;
}

/**
 * Undefined when `entry` can be served (a real upstream, or the simulator is on); else why not,
 * naming the setting that would serve it: "model A-1 has no upstream: set ALPHA_BASE_URL or a
 * deployment".
 */
export function missingUpstream(
  config: Pick<UpstreamFacts, 'upstreams' | 'routing' | 'simulator'>,
  entry: ModelEntry,
): string | undefined {
  if (config.simulator.enabled) return undefined;
  const deployments = config.routing[entry.name]?.deployments ?? [];
  if (deployments.length > 0) {
    if (
      deployments.some((deployment) =>
        reachesRealUpstream(config, deployment.family, deployment.baseUrl, deployment.provider),
      )
    )
      return undefined;
    const families = [...new Set(deployments.map((deployment) => deployment.family))];
    return `model ${entry.name} has no upstream: its deployments need ${families.map(baseUrlSetting).join(' or ')} or a baseUrl of their own`;
  }
  if (reachesRealUpstream(config, entry.family, entry.baseUrl, entry.provider)) return undefined;
  return `model ${entry.name} has no upstream: set ${baseUrlSetting(entry.family)} or a deployment`;
}

function baseUrlSetting(family: FamilyId): string {
  return `${familyCodec(family).descriptor.envPrefix}_BASE_URL`;
}

/**
 * Said at start (log line and banner) whenever simulated answers are possible, so nobody takes
 * them for a model's; undefined when the simulator is off.
 */
export function simulatorNotice(
  config: Pick<UpstreamFacts, 'upstreams' | 'models' | 'routing' | 'simulator' | 'providers'>,
): string | undefined {
  if (!config.simulator.enabled) return undefined;
  if (hasRealUpstream(config))
    return 'the built-in simulator answers the models that have no upstream (simulator: true); its answers carry x-modelgate-simulated: true';
  const settings = familyCodecs().map((codec) => `${codec.descriptor.envPrefix}_BASE_URL`);
  return `no upstream is configured: the built-in simulator answers every model (offline mode; set ${settings.join(', ')} or a deployment for real ones)`;
}
