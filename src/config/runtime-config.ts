/**
 * The one configuration schema, whole: the checked settings (config-schema.ts) turned by a typed
 * transform into the shape the gateway reads (`Config`): the catalog built, every family's
 * upstream and rate limits, defaults that follow from other fields, the simulator's default.
 */
import { dirname, join } from 'node:path';
import type { FamilyId } from '../ir/index.ts';
import { familyCodecs, familyIds } from '../surfaces/registry.ts';
import { buildModelCatalog } from './build-catalog.ts';
import { checkedConfigSchema, type CheckedConfig } from './config-schema.ts';
import type { Settings, UpstreamSection } from './file-schema.ts';
import { providersOf } from './providers-schema.ts';
import { hasRealUpstream } from './upstream-presence.ts';

export const configSchema = checkedConfigSchema.transform(runtimeConfig);

function runtimeConfig({ settings, environmentOnly }: CheckedConfig) {
  const { server } = settings;
  const upstreams = familyUpstreams(settings.upstreams);
  const providers = providersOf(settings.providers);
  const { models, aliases, routing } = buildModelCatalog(settings, upstreams, providers);
  const realUpstream = hasRealUpstream({ upstreams, models, routing, providers });
  return {
    host: server.host,
    port: server.port,
    /** Largest accepted request body. */
    bodyLimitBytes: server.bodyLimitBytes,
    databasePath: settings.database,
    /**
     * MODELGATE_DATABASE_URL: PostgreSQL holds the keys, the ledger and stored answers instead of the
     * embedded file. Carries a password: never logged.
     */
    databaseUrl: settings.postgres.url,
    /** With PostgreSQL: the local file where ledger rows wait until the server has them. */
    outboxPath: settings.postgres.outbox ?? besideDatabase(settings.database, 'ledger-outbox.db'),
    /** Client keys from MODELGATE_KEYS (plain; hashed on load, never logged). */
    staticKeys: environmentOnly.clientKeys,
    /** MODELGATE_ADMIN_KEY: opens `/admin/…`; undefined keeps it closed. Never logged. */
    adminKey: environmentOnly.adminKey,
    /** Requests and tokens per minute per client key and model family (a key may override both). */
    rateLimits: familyRateLimits(settings.limits),
    /**
     * The families whose `tpm` the operator set: it limits every model of the family. Elsewhere the
     * family's default tokens per minute (the spec's table) limits the spec's models only.
     */
    tokenLimitedFamilies: familyIds().filter((id) => settings.limits.families[id]?.tpm !== undefined),
    /** `limits.strictOutputTokens`: an output cap above the model's maximum is a 400 instead of lowered. */
    strictOutputTokens: settings.limits.strictOutputTokens,
    /**
     * Metered for the headers but never refused, said explicitly: every key on `families`, and
     * static keys (by id, `static-1`…) on the families listed for them. Everyone else is limited.
     */
    unlimited: unlimitedKeys(settings.limits, environmentOnly.unlimitedKeys),
    /** On shutdown, how long requests in flight may take to finish before they are cut. */
    drainTimeoutMs: settings.shutdown.drainTimeoutMs,
    upstreams,
    /** The `providers:` section: named providers models and deployments refer to. */
    providers,
    models,
    /** `catalog.spec`: the spec's models (A-1…C-3) are in the catalog. */
    catalog: settings.catalog,
    /** alias → catalog name. */
    aliases,
    timeouts: settings.timeouts,
    /** Deployments, fallbacks and timeouts per catalog model (only the configured ones). */
    routing,
    retry: settings.retry,
    breaker: settings.breaker,
    /** In-flight chat requests beyond which new ones are shed at once with an overloaded error. */
    maxInFlight: server.maxInFlight,
    /** In-flight chat requests one client key may hold (from authentication, before its body); beyond it 429. */
    maxInFlightPerKey: server.maxInFlightPerKey,
    /** Bytes of request bodies being read at once, all requests together; beyond it the overloaded error. */
    maxBodyBytesReading: server.maxBodyBytesReading,
    /** A request body must be whole within this after its reading starts; beyond it 408. */
    bodyReadTimeoutMs: server.bodyReadTimeoutMs,
    /** Over every 2-second window a body must bring this rate (or its rest); slower: 408. */
    minBodyBytesPerSecond: server.minBodyBytesPerSecond,
    /** Largest request head (node:http `maxHeaderSize`); beyond it 431. */
    maxHeaderBytes: server.maxHeaderBytes,
    /** Time for a client to send its request headers (slow-header protection); beyond it 408. */
    headersTimeoutMs: server.headersTimeoutMs,
    /** Time for a client to send its whole request (headers and body); the answer is not limited. */
    requestTimeoutMs: server.requestTimeoutMs,
    /** Keep-alive connections per upstream origin (the pool size). */
    upstreamConnections: settings.upstreamPool.connections,
    upstreamLimits: settings.upstreamLimits,
    simulator: {
      /**
       * Models with no upstream are answered by the built-in simulator. Unset: only while no real
       * upstream is configured at all (the offline default); else `simulator: true` or MODELGATE_SIMULATOR=1.
       */
      enabled: settings.simulator.enabled ?? !realUpstream,
      timeToFirstTokenMs: settings.simulator.timeToFirstTokenMs,
      interTokenDelayMs: settings.simulator.interTokenDelayMs,
    },
    images: settings.images,
    responses: settings.responses,
    logLevel: settings.logLevel,
    /** Where rate limits and budgets live when several processes share them. */
    sharedStore: sharedStore(settings),
    /** `GET /metrics`: who may scrape it, per-key labels, the series cap. */
    metrics: { ...settings.metrics, token: environmentOnly.metricsToken },
    /** OTLP trace export (standard OTEL_* variables). */
    tracing: environmentOnly.tracing,
  };
}

/** Every registered family's upstream: its section (file, then `{PREFIX}_*`), else none (the simulator). */
function familyUpstreams(sections: Settings['upstreams']) {
  return Object.fromEntries(
    familyIds().map((id) => {
      const { baseUrl, apiKey, faultHeaders } = sections[id] ?? noUpstream;
      return [id, { baseUrl, apiKey, faultHeaders }] as const;
    }),
  );
}

/** A family nobody configured: the built-in simulator serves it. */
const noUpstream: UpstreamSection = { faultHeaders: false };

/** Each family's own `limits.<family>`, else its descriptor's defaults (the spec's table for A, B and C). */
function familyRateLimits(limits: Settings['limits']) {
  return Object.fromEntries(
    familyCodecs().map(({ id, descriptor: { defaultLimits } }) => {
      const own = limits.families[id];
      const requestsPerMinute = own?.rpm ?? defaultLimits.requestsPerMinute;
      return [id, { requestsPerMinute, tokensPerMinute: own?.tpm ?? defaultLimits.tokensPerMinute }] as const;
    }),
  );
}

/**
 * Who is metered but never refused. Nobody by default: the spec's limits apply to every client
 * key, static ones included. A whole family (`limits.<family>.unlimited: true`), a static key on
 * the families listed (`limits.staticKeys.static-N.unlimited: [beta]`) or on all of them
 * (`unlimited: true`, or MODELGATE_UNLIMITED_KEYS=static-1,static-2). The ids are checked by the schema.
 */
function unlimitedKeys(limits: Settings['limits'], fromEnvironment: readonly string[]) {
  const families = familyIds().filter((id) => limits.families[id]?.unlimited === true);
  const staticKeys: Record<string, FamilyId[]> = {};
  for (const [id, entry] of Object.entries(limits.staticKeys)) {
    const listed = entry.unlimited === true ? familyIds() : entry.unlimited === false ? [] : entry.unlimited;
    if (listed.length > 0) staticKeys[id] = [...new Set(listed)];
  }
  for (const id of fromEnvironment) staticKeys[id] = [...familyIds()];
  return { families, staticKeys };
}

/** The shared limits store: Redis when MODELGATE_REDIS_URL (or `redis.url`) is set, else in memory. */
function sharedStore({ redis, limits }: Settings) {
  return {
    /** MODELGATE_REDIS_URL: Redis 7 or Valkey; undefined keeps limits and budgets in this process. */
    redisUrl: redis.url,
    /** Longest wait for one Redis command (a frozen server must not hang requests). */
    commandTimeoutMs: redis.commandTimeoutMs,
    /** Prefix of every Redis key and channel (several gateways on one Redis). */
    prefix: redis.prefix,
    /**
     * How long a budget hold lives unless settled: a crashed instance's holds keep the key's budget
     * reserved this long. Undefined: the request's longest wait for an answer plus a minute.
     */
    holdTtlMs: redis.holdTtlMs,
    /** When Redis cannot answer: refuse with 503 (`closed`) or limit per process (`local`). */
    onStoreFailure: limits.onStoreFailure,
    /** Gateway processes sharing the limits (instances × workers), for `local`. */
    instances: limits.instances,
  };
}

/** A file beside the embedded store's (the working directory's for `:memory:`). */
function besideDatabase(databasePath: string, name: string): string {
  return join(databasePath === ':memory:' ? '.' : dirname(databasePath), name);
}
