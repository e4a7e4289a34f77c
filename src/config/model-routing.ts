/**
 * The catalog, aliases and per-model routing (deployments, fallbacks, timeouts) from the file's
 * `models` and `aliases`: the base catalog (the spec's table when on, the vendor models of the
 * configured platforms) with the file's models added or overridden (the file wins), then
 * checked across entries (aliases name models, fallbacks form no cycle).
 */
import { defaultPricing, type ModelCapabilities, type ModelEntry } from './catalog.ts';
import { ConfigError } from './config-error.ts';
import type { DeploymentSpec, ModelSpec, Settings } from './file-schema.ts';
import type { TimeoutConfig } from './resilience-schema.ts';

/**
 * One upstream that can serve a catalog model (a model may have several): a `deployments[]` entry
 * with every field present, its id, family and upstream model filled in from its model (unset:
 * `<model>#<n>`, the model's family and upstream model). `baseUrl` undefined: the family's
 * upstream, or the built-in simulator when it has none; `apiKey` undefined with an own `baseUrl`:
 * a keyless server; `provider`: the named provider holds the base URL and credentials.
 */
export type DeploymentConfig = Resolved<DeploymentSpec, 'id' | 'family' | 'upstreamModel'>;

/** `T` with every key present, and those in `Filled` never undefined. */
type Resolved<T, Filled extends keyof T> = {
  [Key in keyof T]-?: Key extends Filled ? Exclude<T[Key], undefined> : T[Key];
};

/** Per-model routing; models without an entry get one deployment (their family's upstream). */
export interface ModelRouting {
  /** Empty: the model's single default deployment. */
  deployments: DeploymentConfig[];
  /** Catalog names tried in order when the model's deployments are exhausted (aliases resolved). */
  fallbacks: string[];
  /** The model's three upstream timers (global `timeouts` where not overridden). */
  timeouts: TimeoutConfig;
}

export function buildCatalog(specs: ModelSpec[], base: readonly ModelEntry[]): ModelEntry[] {
  const byName = new Map(base.map((entry) => [entry.name, entry]));
  for (const spec of specs) {
    const existing = byName.get(spec.name);
    byName.set(spec.name, existing === undefined ? newEntry(spec) : overrideEntry(existing, spec));
  }
  return [...byName.values()];
}

function newEntry(spec: ModelSpec): ModelEntry {
  if (spec.family === undefined || spec.contextWindow === undefined || spec.maxOutputTokens === undefined) {
    throw new ConfigError(`model ${spec.name}: a new model needs family, contextWindow and maxOutputTokens`);
  }
  const base: ModelEntry = {
    name: spec.name,
    family: spec.family,
    upstreamModel: spec.name,
    contextWindow: spec.contextWindow,
    maxOutputTokens: spec.maxOutputTokens,
    pricing: defaultPricing(
      spec.family,
      spec.pricing?.inputPerMillion ?? 0,
      spec.pricing?.outputPerMillion ?? 0,
    ),
    capabilities: { streaming: true, tools: true, vision: false },
  };
  return overrideEntry(base, spec);
}

function overrideEntry(entry: ModelEntry, spec: ModelSpec): ModelEntry {
  if (spec.family !== undefined && spec.family !== entry.family) {
    throw new ConfigError(`model ${spec.name}: cannot change the family of a catalog model`);
  }
  const pricing = spec.pricing ?? {};
  const input = pricing.inputPerMillion ?? entry.pricing.inputPerMillion;
  const derived = defaultPricing(
    entry.family,
    input,
    pricing.outputPerMillion ?? entry.pricing.outputPerMillion,
  );
  const inputChanged = pricing.inputPerMillion !== undefined;
  const result: ModelEntry = {
    ...entry,
    upstreamModel: spec.upstreamModel ?? entry.upstreamModel,
    contextWindow: spec.contextWindow ?? entry.contextWindow,
    maxOutputTokens: spec.maxOutputTokens ?? entry.maxOutputTokens,
    pricing: {
      inputPerMillion: input,
      outputPerMillion: derived.outputPerMillion,
      cacheReadPerMillion:
        pricing.cacheReadPerMillion ??
        (inputChanged ? derived.cacheReadPerMillion : entry.pricing.cacheReadPerMillion),
      cacheWritePerMillion:
        pricing.cacheWritePerMillion ??
        (inputChanged ? derived.cacheWritePerMillion : entry.pricing.cacheWritePerMillion),
    },
    // What the file leaves unsaid keeps the entry's value (a vendor model's reasoning and caching too).
    capabilities: overrideCapabilities(entry.capabilities, spec.capabilities ?? {}),
  };
  if (spec.baseUrl !== undefined) result.baseUrl = spec.baseUrl;
  if (spec.apiKey !== undefined) result.apiKey = spec.apiKey;
  if (spec.provider !== undefined) result.provider = spec.provider;
  if (result.maxOutputTokens > result.contextWindow) {
    throw new ConfigError(`model ${spec.name}: maxOutputTokens exceeds contextWindow`);
  }
  return result;
}

function overrideCapabilities(
  entry: ModelCapabilities,
  spec: NonNullable<ModelSpec['capabilities']>,
): ModelCapabilities {
  const result: ModelCapabilities = {
    ...entry,
    streaming: spec.streaming ?? entry.streaming,
    tools: spec.tools ?? entry.tools,
    vision: spec.vision ?? entry.vision,
  };
  if (spec.reasoning !== undefined) result.reasoning = spec.reasoning;
  if (spec.promptCaching !== undefined) result.promptCaching = spec.promptCaching;
  return result;
}

/** Deployments, fallbacks and timeouts of the models that configure any; fallback cycles are refused. */
export function buildRouting(
  specs: ModelSpec[],
  models: ModelEntry[],
  aliases: Record<string, string>,
  timeouts: TimeoutConfig,
): Record<string, ModelRouting> {
  const byName = new Map(models.map((entry) => [entry.name, entry]));
  const routing: Record<string, ModelRouting> = Object.create(null) as Record<string, ModelRouting>;
  for (const spec of specs) {
    if (spec.deployments === undefined && spec.fallbacks === undefined && spec.timeouts === undefined)
      continue;
    const entry = byName.get(spec.name);
    if (entry === undefined) continue;
    const previous = routing[spec.name];
    routing[spec.name] = {
      deployments:
        spec.deployments === undefined ? (previous?.deployments ?? []) : buildDeployments(spec, entry),
      fallbacks:
        spec.fallbacks === undefined
          ? (previous?.fallbacks ?? [])
          : spec.fallbacks.map((name) => fallbackTarget(spec.name, name, byName, aliases)),
      timeouts: mergeTimeouts(previous?.timeouts ?? timeouts, spec.timeouts),
    };
  }
  rejectFallbackCycles(routing);
  return routing;
}

function mergeTimeouts(base: TimeoutConfig, override: ModelSpec['timeouts']): TimeoutConfig {
  return {
    connectMs: override?.connectMs ?? base.connectMs,
    firstByteMs: override?.firstByteMs ?? base.firstByteMs,
    idleMs: override?.idleMs ?? base.idleMs,
  };
}

function buildDeployments(spec: ModelSpec, entry: ModelEntry): DeploymentConfig[] {
  if (spec.baseUrl !== undefined || spec.apiKey !== undefined || spec.provider !== undefined) {
    throw new ConfigError(
      `model ${spec.name}: set baseUrl/apiKey/provider on its deployments, not beside them`,
    );
  }
  const ids = new Set<string>();
  return (spec.deployments ?? []).map((deployment, index) => {
    const id = deployment.id ?? `${entry.name}#${index + 1}`;
    if (ids.has(id)) throw new ConfigError(`model ${spec.name}: deployment id ${id} is used twice`);
    ids.add(id);
    const deploymentFamily = deployment.family ?? entry.family;
    if (deploymentFamily !== entry.family && deployment.upstreamModel === undefined) {
      throw new ConfigError(
        `model ${spec.name}: deployment ${id} speaks ${deploymentFamily}, so it needs its own upstreamModel`,
      );
    }
    return {
      id,
      family: deploymentFamily,
      baseUrl: deployment.baseUrl,
      apiKey: deployment.apiKey,
      provider: deployment.provider,
      upstreamModel: deployment.upstreamModel ?? entry.upstreamModel,
      weight: deployment.weight,
    };
  });
}

function fallbackTarget(
  model: string,
  name: string,
  byName: ReadonlyMap<string, ModelEntry>,
  aliases: Record<string, string>,
): string {
  const target = byName.has(name) ? name : aliases[name];
  if (target === undefined) throw new ConfigError(`model ${model}: fallback ${name} is not a known model`);
  if (target === model) throw new ConfigError(`model ${model}: a model cannot fall back to itself`);
  return target;
}

/** Fallbacks are followed transitively, so the graph must be acyclic; the message names the cycle. */
function rejectFallbackCycles(routing: Record<string, ModelRouting>): void {
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (done.has(name)) return;
    const at = path.indexOf(name);
    if (at !== -1) {
      throw new ConfigError(`fallbacks form a cycle: ${[...path.slice(at), name].join(' → ')}`);
    }
    for (const next of routing[name]?.fallbacks ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of Object.keys(routing)) visit(name, []);
}

export function buildAliases(
  settings: Pick<Settings, 'models' | 'aliases'>,
  models: ModelEntry[],
): Record<string, string> {
  const names = new Set(models.map((entry) => entry.name));
  const aliases: Record<string, string> = Object.create(null) as Record<string, string>;
  const add = (alias: string, target: string): void => {
    if (names.has(alias)) throw new ConfigError(`alias ${alias} is already a model name`);
    // A `*` only ends a prefix alias (`claude-*`); anywhere else it would be a pattern nobody wrote.
    if (alias.includes('*') && !(alias.length > 1 && alias.indexOf('*') === alias.length - 1))
      throw new ConfigError(`alias ${alias}: "*" may only end an alias (a prefix, as in claude-*)`);
    if (!names.has(target)) throw new ConfigError(`alias ${alias} points to unknown model ${target}`);
    if (aliases[alias] !== undefined && aliases[alias] !== target) {
      throw new ConfigError(`alias ${alias} is defined twice`);
    }
    aliases[alias] = target;
  };
  for (const spec of settings.models) for (const alias of spec.aliases) add(alias, spec.name);
  for (const [alias, target] of Object.entries(settings.aliases)) add(alias, target);
  return aliases;
}
