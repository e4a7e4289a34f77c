/**
 * Builds the Config from environment variables and an optional YAML/JSON file. The file is
 * validated with clear messages; environment variables win over the file.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { familyCodec, familyCodecs, familyIds, isFamilyId } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import { defaultCatalog, defaultPricing, type ModelEntry } from './catalog.ts';
import type { Config, DeploymentConfig, ModelRouting, TimeoutConfig, UpstreamConfig } from './config.ts';
import type { RateLimitConfig } from './config.ts';
import { metricsConfig, metricsFileSchema, tracingConfig } from './observability-config.ts';

const positiveInteger = z.number().int().positive();
const price = z.number().nonnegative();
// Checked when a file is read, against the families registered then.
const family = z.string().refine(isFamilyId, {
  error: (issue) => `${JSON.stringify(issue.input)} is no family (${familyIds().join(', ')})`,
});
const modelName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s/][^\s]*$/, 'model names have no spaces and do not start with "/"');

const upstreamSchema = z.strictObject({
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  faultHeaders: z.boolean().optional(),
});

const timeoutsSchema = z.strictObject({
  connectMs: positiveInteger.optional(),
  firstByteMs: positiveInteger.optional(),
  idleMs: positiveInteger.optional(),
});

const deploymentSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:#@+-]{0,99}$/, 'deployment ids are 1–100 letters, digits and ._:#@+-')
    .optional(),
  family: family.optional(),
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  upstreamModel: z.string().min(1).optional(),
  weight: z.number().positive().max(1_000_000).optional(),
});

const modelSchema = z.strictObject({
  name: modelName,
  family: family.optional(),
  upstreamModel: z.string().min(1).optional(),
  contextWindow: positiveInteger.optional(),
  maxOutputTokens: positiveInteger.optional(),
  pricing: z
    .strictObject({
      inputPerMillion: price.optional(),
      outputPerMillion: price.optional(),
      cacheReadPerMillion: price.optional(),
      cacheWritePerMillion: price.optional(),
    })
    .optional(),
  capabilities: z
    .strictObject({
      streaming: z.boolean().optional(),
      tools: z.boolean().optional(),
      vision: z.boolean().optional(),
    })
    .optional(),
  aliases: z.array(modelName).optional(),
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  deployments: z.array(deploymentSchema).min(1).max(100).optional(),
  fallbacks: z.array(modelName).max(20).optional(),
  timeouts: timeoutsSchema.optional(),
});

/** Per-family rate limits: one optional `{rpm, tpm, unlimited}` key per family id. */
const familyLimits = z.strictObject({
  rpm: positiveInteger.optional(),
  tpm: positiveInteger.optional(),
  /** Every key on this family is metered for the headers but never refused. */
  unlimited: z.boolean().optional(),
});
type FamilyLimitsSpec = z.infer<typeof familyLimits>;

/** The settings of `limits` that are not a family's section. */
const limitSettings = {
  // An output cap above the model's maximum is a 400 instead of being lowered (with a warning).
  strictOutputTokens: z.boolean().optional(),
  /** With a shared store (Redis): what rate limits do when it cannot answer. */
  onStoreFailure: z.enum(['closed', 'local']).optional(),
  /** Gateway processes sharing the limits (instances × workers): `local` admits limit ÷ this each. */
  instances: positiveInteger.max(10_000).optional(),
  /** Static keys metered but never refused: on every family (`true`) or on the listed ones. */
  staticKeys: z
    .record(z.string(), z.strictObject({ unlimited: z.union([z.boolean(), z.array(family).min(1)]) }))
    .optional(),
};

/**
 * `limits`: the settings above, and one `{rpm, tpm, unlimited}` section per family, keyed by its id
 * (the families are the registry's, so the sections are checked by name, not by a fixed shape).
 */
const limitsSchema = z.looseObject(limitSettings).superRefine((limits, context) => {
  for (const [key, value] of Object.entries(limits)) {
    if (Object.hasOwn(limitSettings, key)) continue;
    if (!isFamilyId(key)) {
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `no such setting or family (families: ${familyIds().join(', ')})`,
      });
      continue;
    }
    const parsed = familyLimits.safeParse(value);
    for (const issue of parsed.error?.issues ?? [])
      context.addIssue({ ...issue, code: 'custom', path: [key, ...issue.path], message: issue.message });
  }
});

/** Keys of a per-family record must name registered families. */
function onlyFamilyKeys(record: Record<string, unknown>, context: z.RefinementCtx): void {
  for (const key of Object.keys(record))
    if (!isFamilyId(key))
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `no such family (${familyIds().join(', ')})`,
      });
}

/** A family's section of `limits` (already validated when the file was read). */
function familyLimitsOf(file: ConfigFile, id: FamilyId): FamilyLimitsSpec | undefined {
  const section = file.limits?.[id];
  return section === undefined ? undefined : familyLimits.parse(section);
}

const fileSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).optional(),
      port: z.number().int().min(0).max(65535).optional(),
      bodyLimitBytes: positiveInteger.optional(),
      maxInFlight: positiveInteger.optional(),
      maxInFlightPerKey: positiveInteger.optional(),
      maxBodyBytesReading: positiveInteger.optional(),
      bodyReadTimeoutMs: positiveInteger.optional(),
      minBodyBytesPerSecond: z.number().int().min(0).optional(),
      maxHeaderBytes: positiveInteger.optional(),
      headersTimeoutMs: positiveInteger.optional(),
      requestTimeoutMs: positiveInteger.optional(),
    })
    .optional(),
  database: z.string().min(1).optional(),
  postgres: z
    .strictObject({
      url: z.string().min(1).optional(),
      outbox: z.string().min(1).optional(),
    })
    .optional(),
  redis: z
    .strictObject({
      url: z.string().min(1).optional(),
      commandTimeoutMs: positiveInteger.max(10_000).optional(),
      prefix: z.string().max(64).optional(),
      holdTtlMs: positiveInteger.min(1_000).optional(),
    })
    .optional(),
  upstreams: z.record(z.string(), upstreamSchema).superRefine(onlyFamilyKeys).optional(),
  models: z.array(modelSchema).optional(),
  aliases: z.record(modelName, modelName).optional(),
  timeouts: timeoutsSchema.optional(),
  retry: z
    .strictObject({
      attempts: positiveInteger.max(20).optional(),
      maxAttempts: positiveInteger.max(50).optional(),
      budgetMs: positiveInteger.optional(),
      backoffMs: z.number().int().min(0).optional(),
      maxBackoffMs: z.number().int().min(0).optional(),
      maxRetryAfterMs: z.number().int().min(0).optional(),
    })
    .optional(),
  breaker: z
    .strictObject({
      failureThreshold: z.number().int().min(0).optional(),
      cooldownMs: positiveInteger.optional(),
    })
    .optional(),
  upstreamPool: z.strictObject({ connections: positiveInteger.max(10_000).optional() }).optional(),
  upstreamLimits: z
    .strictObject({
      maxResponseBytes: positiveInteger.optional(),
      maxEventBytes: positiveInteger.optional(),
    })
    .optional(),
  simulator: z
    .strictObject({
      timeToFirstTokenMs: z.number().int().min(0).optional(),
      interTokenDelayMs: z.number().int().min(0).optional(),
    })
    .optional(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).optional(),
  images: z
    .strictObject({
      fetch: z.boolean().optional(),
      maxBytes: positiveInteger.max(50 * 1024 * 1024).optional(),
      timeoutMs: positiveInteger.max(60_000).optional(),
      maxPerRequest: positiveInteger.max(1000).optional(),
    })
    .optional(),
  limits: limitsSchema.optional(),
  shutdown: z.strictObject({ drainTimeoutMs: z.number().int().min(0).optional() }).optional(),
  // Days a stored Responses API answer is kept (fractions allowed); default 30.
  responses: z
    .strictObject({
      retentionDays: z.number().positive().max(3650).optional(),
      // One stored response's JSON at most (its own input and answer); default 1 MiB.
      maxStoredBytes: positiveInteger.max(256 * 1024 * 1024).optional(),
      builtInTools: z.enum(['reject', 'drop']).optional(),
    })
    .optional(),
  metrics: metricsFileSchema,
});

type ConfigFile = z.infer<typeof fileSchema>;
type ModelSpec = z.infer<typeof modelSchema>;
export type Environment = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the file at `path` (YAML or JSON by content; JSON is YAML). */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML/JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success)
    throw new ConfigError(`config file ${path} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function loadConfig(environment: Environment, configPath?: string): Config {
  const path = configPath ?? nonEmpty(environment.MODELGATE_CONFIG);
  const file: ConfigFile = path === undefined ? {} : readConfigFile(path);
  const models = buildCatalog(file.models ?? []);
  const aliases = buildAliases(file, models);
  const timeouts: TimeoutConfig = {
    connectMs: file.timeouts?.connectMs ?? 10_000,
    firstByteMs: file.timeouts?.firstByteMs ?? 120_000,
    idleMs: file.timeouts?.idleMs ?? 120_000,
  };
  const headersTimeoutMs = file.server?.headersTimeoutMs ?? 10_000;
  const databasePath = nonEmpty(environment.MODELGATE_DB) ?? file.database ?? './data/modelgate.db';
  return {
    host: nonEmpty(environment.HOST) ?? file.server?.host ?? '127.0.0.1',
    port: environmentPort(environment.PORT) ?? file.server?.port ?? 8080,
    bodyLimitBytes: file.server?.bodyLimitBytes ?? defaultBodyLimitBytes,
    databasePath,
    ...postgresConfig(file, environment, databasePath),
    staticKeys: staticKeysOf(environment),
    upstreams: buildUpstreams(file, environment),
    models,
    aliases,
    timeouts,
    routing: buildRouting(file.models ?? [], models, aliases, timeouts),
    retry: {
      attempts: file.retry?.attempts ?? 3,
      maxAttempts: file.retry?.maxAttempts ?? 6,
      budgetMs: file.retry?.budgetMs ?? 30_000,
      backoffMs: file.retry?.backoffMs ?? 250,
      maxBackoffMs: file.retry?.maxBackoffMs ?? 4_000,
      maxRetryAfterMs: file.retry?.maxRetryAfterMs ?? 2_000,
    },
    breaker: {
      failureThreshold: file.breaker?.failureThreshold ?? 5,
      cooldownMs: file.breaker?.cooldownMs ?? 30_000,
    },
    ...clientLimits(file),
    maxHeaderBytes: file.server?.maxHeaderBytes ?? 16_384,
    headersTimeoutMs,
    // node:http requires requestTimeout ≥ headersTimeout.
    requestTimeoutMs: Math.max(file.server?.requestTimeoutMs ?? 120_000, headersTimeoutMs),
    upstreamConnections: file.upstreamPool?.connections ?? 256,
    upstreamLimits: {
      maxResponseBytes: file.upstreamLimits?.maxResponseBytes ?? 32 * 1024 * 1024,
      maxEventBytes: file.upstreamLimits?.maxEventBytes ?? 1024 * 1024,
    },
    simulator: {
      timeToFirstTokenMs:
        environmentInteger(environment, 'SIMULATOR_TTFT_MS') ?? file.simulator?.timeToFirstTokenMs ?? 0,
      interTokenDelayMs:
        environmentInteger(environment, 'SIMULATOR_TOKEN_DELAY_MS') ?? file.simulator?.interTokenDelayMs ?? 0,
    },
    responses: {
      retentionMs: (file.responses?.retentionDays ?? 30) * 86_400_000,
      maxStoredBytes: file.responses?.maxStoredBytes ?? 1024 * 1024,
      builtInTools: file.responses?.builtInTools ?? 'reject',
    },
    images: {
      enabled: file.images?.fetch ?? false,
      maxBytes: file.images?.maxBytes ?? 5 * 1024 * 1024,
      timeoutMs: file.images?.timeoutMs ?? 5_000,
      maxPerRequest: file.images?.maxPerRequest ?? 20,
    },
    logLevel: logLevel(environment.LOG_LEVEL) ?? file.logLevel ?? 'info',
    sharedStore: sharedStoreConfig(file, environment),
    ...keyPolicyConfig(file, environment),
    metrics: metricsConfig(file.metrics, environment, (message) => {
      throw new ConfigError(message);
    }),
    tracing: tracingConfig(environment),
  };
}

/** What one client and all clients' request bodies may take of the gateway (slots, memory, time). */
function clientLimits(
  file: ConfigFile,
): Pick<
  Config,
  'maxInFlight' | 'maxInFlightPerKey' | 'maxBodyBytesReading' | 'bodyReadTimeoutMs' | 'minBodyBytesPerSecond'
> {
  const server = file.server ?? {};
  const maxInFlight = server.maxInFlight ?? 1024;
  const bodyLimitBytes = server.bodyLimitBytes ?? defaultBodyLimitBytes;
  const maxInFlightPerKey = server.maxInFlightPerKey ?? Math.max(1, Math.floor(maxInFlight / 4));
  if (maxInFlightPerKey > maxInFlight)
    throw new ConfigError('server.maxInFlightPerKey must not exceed server.maxInFlight');
  const maxBodyBytesReading = server.maxBodyBytesReading ?? Math.max(128 * 1024 * 1024, bodyLimitBytes);
  if (maxBodyBytesReading < bodyLimitBytes)
    throw new ConfigError(
      'server.maxBodyBytesReading must be at least server.bodyLimitBytes (one whole body)',
    );
  return {
    maxInFlight,
    maxInFlightPerKey,
    maxBodyBytesReading,
    bodyReadTimeoutMs: server.bodyReadTimeoutMs ?? 60_000,
    minBodyBytesPerSecond: server.minBodyBytesPerSecond ?? 8_192,
  };
}

const defaultBodyLimitBytes = 16 * 1024 * 1024;

function staticKeysOf(environment: Environment): string[] {
  return (environment.MODELGATE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
}

/** The key policy's settings: the admin key, per-family rate limits, the shutdown drain. */
function keyPolicyConfig(
  file: ConfigFile,
  environment: Environment,
): Pick<Config, 'adminKey' | 'rateLimits' | 'unlimited' | 'drainTimeoutMs' | 'strictOutputTokens'> {
  const adminKey = nonEmpty(environment.MODELGATE_ADMIN_KEY);
  if (adminKey !== undefined && adminKey.length < 16)
    throw new ConfigError('MODELGATE_ADMIN_KEY must be at least 16 characters');
  if (
    adminKey !== undefined &&
    (environment.MODELGATE_KEYS ?? '').split(',').some((key) => key.trim() === adminKey)
  )
    throw new ConfigError('MODELGATE_ADMIN_KEY must differ from every client key in MODELGATE_KEYS');
  const rateLimits: Record<FamilyId, RateLimitConfig> = {};
  for (const codec of familyCodecs()) {
    const own = familyLimitsOf(file, codec.id);
    // The family's own defaults (its descriptor: the spec's table for A, B and C).
    const defaults = codec.descriptor.defaultLimits;
    rateLimits[codec.id] = {
      requestsPerMinute: own?.rpm ?? defaults.requestsPerMinute,
      tokensPerMinute: own?.tpm ?? defaults.tokensPerMinute,
    };
  }
  return {
    adminKey,
    rateLimits,
    unlimited: unlimitedConfig(file, environment),
    drainTimeoutMs: file.shutdown?.drainTimeoutMs ?? 30_000,
    strictOutputTokens: file.limits?.strictOutputTokens ?? false,
  };
}

/**
 * PostgreSQL when MODELGATE_DATABASE_URL (or `postgres.url`) is set; its ledger outbox beside the
 * embedded store's file unless MODELGATE_OUTBOX (or `postgres.outbox`) names one.
 */
function postgresConfig(
  file: ConfigFile,
  environment: Environment,
  databasePath: string,
): Pick<Config, 'databaseUrl' | 'outboxPath'> {
  const databaseUrl = nonEmpty(environment.MODELGATE_DATABASE_URL) ?? file.postgres?.url;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/[^\s]+$/.test(databaseUrl))
    throw new ConfigError('MODELGATE_DATABASE_URL must be a postgres:// or postgresql:// URL');
  const outboxPath =
    nonEmpty(environment.MODELGATE_OUTBOX) ??
    file.postgres?.outbox ??
    join(databasePath === ':memory:' ? '.' : dirname(databasePath), 'ledger-outbox.db');
  return { databaseUrl, outboxPath };
}

/** The shared limits store: Redis when MODELGATE_REDIS_URL (or `redis.url`) is set, else in memory. */
function sharedStoreConfig(file: ConfigFile, environment: Environment): Config['sharedStore'] {
  const redisUrl = nonEmpty(environment.MODELGATE_REDIS_URL) ?? file.redis?.url;
  if (redisUrl !== undefined && !/^(redis|rediss|valkey|valkeys):\/\/[^\s]+$/.test(redisUrl))
    throw new ConfigError('MODELGATE_REDIS_URL must be a redis:// or rediss:// URL');
  return {
    redisUrl: redisUrl?.replace(/^valkey/, 'redis'),
    commandTimeoutMs: file.redis?.commandTimeoutMs ?? 50,
    prefix: file.redis?.prefix ?? 'mg:',
    holdTtlMs: file.redis?.holdTtlMs,
    onStoreFailure: file.limits?.onStoreFailure ?? 'closed',
    instances: file.limits?.instances ?? 1,
  };
}

/**
 * Who is metered but never refused. Nobody by default: the spec's limits apply to every client
 * key, static ones included. A whole family (`limits.<family>.unlimited: true`), a static key on
 * the families listed (`limits.staticKeys.static-N.unlimited: [beta]`) or on all of them
 * (`unlimited: true`, or MODELGATE_UNLIMITED_KEYS=static-1,static-2).
 */
function unlimitedConfig(file: ConfigFile, environment: Environment): Config['unlimited'] {
  const staticCount = staticKeysOf(environment).length;
  const families = familyIds().filter((id) => familyLimitsOf(file, id)?.unlimited === true);
  const staticKeys: Record<string, FamilyId[]> = {};
  const named = (id: string, where: string): string => {
    if (!/^static-[1-9]\d*$/.test(id))
      throw new ConfigError(
        `${where}: ${id} is not a static key id (static-1, static-2, …: the keys' order in MODELGATE_KEYS)`,
      );
    if (Number(id.slice('static-'.length)) > staticCount)
      throw new ConfigError(`${where}: ${id} names no key (MODELGATE_KEYS has ${staticCount})`);
    return id;
  };
  for (const [id, entry] of Object.entries(file.limits?.staticKeys ?? {})) {
    const listed =
      entry.unlimited === true ? [...familyIds()] : entry.unlimited === false ? [] : entry.unlimited;
    if (listed.length > 0) staticKeys[named(id, 'limits.staticKeys')] = [...new Set(listed)];
  }
  for (const id of (environment.MODELGATE_UNLIMITED_KEYS ?? '').split(',')) {
    const trimmed = id.trim();
    if (trimmed.length > 0) staticKeys[named(trimmed, 'MODELGATE_UNLIMITED_KEYS')] = [...familyIds()];
  }
  return { families, staticKeys };
}

function buildUpstreams(file: ConfigFile, environment: Environment): Record<FamilyId, UpstreamConfig> {
  const result: Record<FamilyId, UpstreamConfig> = {};
  for (const id of familyIds()) {
    const prefix = familyCodec(id).descriptor.envPrefix;
    const fromFile = file.upstreams?.[id];
    const baseUrl = nonEmpty(environment[`${prefix}_BASE_URL`]) ?? fromFile?.baseUrl;
    if (baseUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(baseUrl)) {
      throw new ConfigError(`${prefix}_BASE_URL must be an http(s) URL without query or fragment`);
    }
    result[id] = {
      baseUrl: baseUrl?.replace(/\/+$/, ''),
      apiKey: nonEmpty(environment[`${prefix}_API_KEY`]) ?? fromFile?.apiKey,
      faultHeaders:
        environmentFlag(environment, `${prefix}_FAULT_HEADERS`) ?? fromFile?.faultHeaders ?? false,
    };
  }
  return result;
}

function buildCatalog(specs: ModelSpec[]): ModelEntry[] {
  const byName = new Map(defaultCatalog().map((entry) => [entry.name, entry]));
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
    capabilities: {
      streaming: spec.capabilities?.streaming ?? entry.capabilities.streaming,
      tools: spec.capabilities?.tools ?? entry.capabilities.tools,
      vision: spec.capabilities?.vision ?? entry.capabilities.vision,
    },
  };
  if (spec.baseUrl !== undefined) result.baseUrl = spec.baseUrl.replace(/\/+$/, '');
  if (spec.apiKey !== undefined) result.apiKey = spec.apiKey;
  if (result.maxOutputTokens > result.contextWindow) {
    throw new ConfigError(`model ${spec.name}: maxOutputTokens exceeds contextWindow`);
  }
  return result;
}

/** Deployments, fallbacks and timeouts of the models that configure any; fallback cycles are refused. */
function buildRouting(
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
  if (spec.baseUrl !== undefined || spec.apiKey !== undefined) {
    throw new ConfigError(`model ${spec.name}: set baseUrl/apiKey on its deployments, not beside them`);
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
    const baseUrl = deployment.baseUrl?.replace(/\/+$/, '');
    if (baseUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(baseUrl)) {
      throw new ConfigError(
        `model ${spec.name}: deployment ${id} baseUrl must be http(s) without query or fragment`,
      );
    }
    return {
      id,
      family: deploymentFamily,
      baseUrl,
      apiKey: deployment.apiKey,
      upstreamModel: deployment.upstreamModel ?? entry.upstreamModel,
      weight: deployment.weight ?? 1,
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

function buildAliases(file: ConfigFile, models: ModelEntry[]): Record<string, string> {
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
  for (const spec of file.models ?? []) for (const alias of spec.aliases ?? []) add(alias, spec.name);
  for (const [alias, target] of Object.entries(file.aliases ?? {})) add(alias, target);
  return aliases;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function environmentPort(value: string | undefined): number | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be 0–65535, got ${text}`);
  return port;
}

function environmentInteger(environment: Environment, name: string): number | undefined {
  const text = nonEmpty(environment[name]);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a whole number ≥ 0`);
  return value;
}

/** `1`/`true` or `0`/`false`; unset is undefined. */
function environmentFlag(environment: Environment, name: string): boolean | undefined {
  const text = nonEmpty(environment[name])?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new ConfigError(`${name} must be 1, true, 0 or false`);
}

function logLevel(value: string | undefined): Config['logLevel'] | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const levels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
  const found = levels.find((level) => level === text);
  if (found === undefined) throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}`);
  return found;
}
