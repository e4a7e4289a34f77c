/**
 * Builds the Config from environment variables and an optional YAML/JSON file. The file is
 * validated with clear messages (file-schema.ts); environment variables win over the file.
 */
import { dirname, join } from 'node:path';
import { familyCodec, familyCodecs, familyIds } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import { isSpecModel, type ModelEntry } from './catalog.ts';
import { ConfigError } from './config-error.ts';
import type { Config, RateLimitConfig, UpstreamConfig } from './config.ts';
import {
  environmentFlag,
  environmentInteger,
  environmentPort,
  logLevel,
  nonEmpty,
  staticKeysOf,
  type Environment,
} from './environment.ts';
import { familyLimitsOf, fileSchema, type ConfigFile } from './file-schema.ts';
import { buildAliases, buildCatalog, buildRouting } from './model-routing.ts';
import { checkProviderReferences, providersOf } from './providers-schema.ts';
import { metricsConfig, tracingConfig } from './observability-config.ts';
import { readConfigFile } from './read-config-file.ts';
import { activePlatforms, hasRealUpstream, providerPlatforms } from './upstream-presence.ts';
import { baseCatalog, vendorModel, type VendorPlatform } from './vendor-catalog.ts';

export { ConfigError } from './config-error.ts';
export type { Environment } from './environment.ts';
export { readConfigFile } from './read-config-file.ts';

export function loadConfig(environment: Environment, configPath?: string): Config {
  const path = configPath ?? nonEmpty(environment.MODELGATE_CONFIG);
  const file: ConfigFile = path === undefined ? fileSchema.parse({}) : readConfigFile(path, environment);
  const upstreams = buildUpstreams(file, environment);
  const catalog = { spec: file.catalog?.spec ?? true };
  const providers = providersOf(file.providers);
  checkProviderReferences(providers, file.models ?? []);
  const base = throughProviders(
    baseCatalog({ spec: catalog.spec, platforms: activePlatforms({ upstreams, providers }) }),
    providerPlatforms({ providers }),
  );
  const models = buildCatalog(file.models ?? [], withoutAliased(base, file, catalog.spec));
  const aliases = buildAliases(file, models);
  const timeouts = file.timeouts;
  const routing = buildRouting(file.models ?? [], models, aliases, timeouts);
  const headersTimeoutMs = file.server?.headersTimeoutMs ?? 10_000;
  const databasePath = nonEmpty(environment.MODELGATE_DB) ?? file.database ?? './data/modelgate.db';
  return {
    host: nonEmpty(environment.HOST) ?? file.server?.host ?? '127.0.0.1',
    port: environmentPort(environment.PORT) ?? file.server?.port ?? 8080,
    bodyLimitBytes: file.server?.bodyLimitBytes ?? defaultBodyLimitBytes,
    databasePath,
    ...postgresConfig(file, environment, databasePath),
    staticKeys: staticKeysOf(environment),
    upstreams,
    providers,
    models,
    catalog,
    aliases,
    timeouts,
    routing,
    retry: file.retry,
    breaker: file.breaker,
    ...clientLimits(file),
    maxHeaderBytes: file.server?.maxHeaderBytes ?? 16_384,
    headersTimeoutMs,
    // node:http requires requestTimeout ≥ headersTimeout.
    requestTimeoutMs: Math.max(file.server?.requestTimeoutMs ?? 120_000, headersTimeoutMs),
    upstreamConnections: file.upstreamPool?.connections ?? 256,
    upstreamLimits: file.upstreamLimits,
    simulator: simulatorConfig(file, environment, hasRealUpstream({ upstreams, models, routing, providers })),
    responses: file.responses,
    images: file.images,
    logLevel: logLevel(environment.LOG_LEVEL) ?? file.logLevel ?? 'info',
    sharedStore: sharedStoreConfig(file, environment),
    ...keyPolicyConfig(file, environment),
    metrics: metricsConfig(file.metrics, environment, (message) => {
      throw new ConfigError(message);
    }),
    tracing: tracingConfig(environment),
  };
}

/**
 * An alias the file gives a vendor model's name (`gpt-4o: A-2`, written before OpenAI's models were
 * offered) says what the operator wants that name to be: the vendor model gives way rather than the
 * start failing. The spec's names stay refused as aliases, as always.
 */
/** A vendor model of a platform a named provider serves goes through that provider (`provider:`). */
function throughProviders(base: ModelEntry[], served: Map<VendorPlatform, string>): ModelEntry[] {
  if (served.size === 0) return base;
  return base.map((entry) => {
    const platform = vendorModel(entry.name)?.platform;
    const provider = platform === undefined ? undefined : served.get(platform);
    return provider === undefined ? entry : { ...entry, provider };
  });
}

function withoutAliased(base: ModelEntry[], file: ConfigFile, spec: boolean): ModelEntry[] {
  const aliases = new Set([
    ...Object.keys(file.aliases ?? {}),
    ...(file.models ?? []).flatMap((model) => model.aliases ?? []),
  ]);
  return base.filter((entry) => !aliases.has(entry.name) || (spec && isSpecModel(entry.name)));
}

/**
 * The built-in simulator answers models with no upstream while no real upstream is configured at
 * all (the offline default); once one is, only when asked (`simulator: true`, MODELGATE_SIMULATOR=1).
 */
function simulatorConfig(
  file: ConfigFile,
  environment: Environment,
  realUpstream: boolean,
): Config['simulator'] {
  const section = typeof file.simulator === 'object' ? file.simulator : {};
  const asked = typeof file.simulator === 'boolean' ? file.simulator : section.enabled;
  return {
    enabled: environmentFlag(environment, 'MODELGATE_SIMULATOR') ?? asked ?? !realUpstream,
    timeToFirstTokenMs:
      environmentInteger(environment, 'SIMULATOR_TTFT_MS') ?? section.timeToFirstTokenMs ?? 0,
    interTokenDelayMs:
      environmentInteger(environment, 'SIMULATOR_TOKEN_DELAY_MS') ?? section.interTokenDelayMs ?? 0,
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

/** The key policy's settings: the admin key, per-family rate limits, the shutdown drain. */
function keyPolicyConfig(
  file: ConfigFile,
  environment: Environment,
): Pick<
  Config,
  'adminKey' | 'rateLimits' | 'tokenLimitedFamilies' | 'unlimited' | 'drainTimeoutMs' | 'strictOutputTokens'
> {
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
    tokenLimitedFamilies: familyIds().filter((id) => familyLimitsOf(file, id)?.tpm !== undefined),
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
