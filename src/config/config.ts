/** The validated, immutable gateway configuration (env + optional file), built once at startup. */
import type { FamilyId } from '../ir/index.ts';
import type { ModelEntry } from './catalog.ts';
import type { z } from 'zod';
import type { LogLevel } from './environment.ts';
import type { ImageFetchConfig, responsesSchema } from './service-schema.ts';

export type { BuiltInToolPolicy, ImageFetchConfig } from './service-schema.ts';
import type { BreakerConfig, RetryConfig, TimeoutConfig, UpstreamLimits } from './resilience-schema.ts';

export type { BreakerConfig, RetryConfig, TimeoutConfig, UpstreamLimits } from './resilience-schema.ts';
import type { MetricsConfig, TracingConfig } from './observability-config.ts';
import type { ProviderConfig } from './providers-schema.ts';

export type { ProviderConfig } from './providers-schema.ts';

export interface UpstreamConfig {
  /** The part before `/v1`; undefined means the built-in simulator serves the family. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /**
   * The upstream is a `modelgate simulate` server: clients' `x-simulate-*` fault headers are
   * forwarded to it (they go to the built-in simulator always, to a real upstream never).
   */
  faultHeaders: boolean;
}

/** One upstream that can serve a catalog model (a model may have several). */
export interface DeploymentConfig {
  /** Shown in `GET /admin/health` and attempt records; never a URL or key. */
  id: string;
  /** The wire family spoken to this upstream (may differ from the model's). */
  family: FamilyId;
  /** Undefined: the family's configured upstream, or the built-in simulator when it has none. */
  baseUrl: string | undefined;
  /** Undefined with an own `baseUrl`: a keyless server (the family key never goes to another host). */
  apiKey: string | undefined;
  upstreamModel: string;
  /** A `providers:` name: the provider holds the base URL and credentials (`baseUrl`/`apiKey` unset). */
  provider: string | undefined;
  /** Relative share of the traffic among healthy deployments. */
  weight: number;
}

/** Per-model routing; models without an entry get one deployment (their family's upstream). */
export interface ModelRouting {
  /** Empty: the model's single default deployment. */
  deployments: DeploymentConfig[];
  /** Catalog names tried in order when the model's deployments are exhausted (aliases resolved). */
  fallbacks: string[];
  /** The model's three upstream timers (global `timeouts` where not overridden). */
  timeouts: TimeoutConfig;
}

export interface RateLimitConfig {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

export interface SimulatorConfig {
  /**
   * Models with no upstream are answered by the built-in simulator. Default: only while no real
   * upstream is configured at all; else `simulator: true` or MODELGATE_SIMULATOR=1.
   */
  enabled: boolean;
  timeToFirstTokenMs: number;
  interTokenDelayMs: number;
}

export interface Config {
  host: string;
  port: number;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  databasePath: string;
  /**
   * MODELGATE_DATABASE_URL: PostgreSQL holds the keys, the ledger and stored answers instead of the
   * embedded file. Carries a password: never logged.
   */
  databaseUrl: string | undefined;
  /** With PostgreSQL: the local file where ledger rows wait until the server has them. */
  outboxPath: string;
  /** Client keys from MODELGATE_KEYS (plain; hashed on load, never logged). */
  staticKeys: string[];
  /** MODELGATE_ADMIN_KEY: opens `/admin/…`; undefined keeps it closed. Never logged. */
  adminKey: string | undefined;
  /** Requests and tokens per minute per client key and model family (a key may override both). */
  rateLimits: Record<FamilyId, RateLimitConfig>;
  /**
   * The families whose `tpm` the operator set: it limits every model of the family. Elsewhere the
   * family's default tokens per minute (the spec's table) limits the spec's models only.
   */
  tokenLimitedFamilies: FamilyId[];
  /** `limits.strictOutputTokens`: an output cap above the model's maximum is a 400 instead of lowered. */
  strictOutputTokens: boolean;
  /**
   * Metered for the headers but never refused, said explicitly: every key on `families`, and
   * static keys (by id, `static-1`…) on the families listed for them. Everyone else is limited.
   */
  unlimited: { families: FamilyId[]; staticKeys: Record<string, FamilyId[]> };
  /** On shutdown, how long requests in flight may take to finish before they are cut. */
  drainTimeoutMs: number;
  upstreams: Record<FamilyId, UpstreamConfig>;
  /** The `providers:` section: named providers models and deployments refer to. */
  providers: Record<string, ProviderConfig>;
  models: ModelEntry[];
  /** `catalog.spec`: the spec's models (A-1…C-3) are in the catalog. */
  catalog: { spec: boolean };
  /** alias → catalog name. */
  aliases: Record<string, string>;
  timeouts: TimeoutConfig;
  /** Deployments, fallbacks and timeouts per catalog model (only the configured ones). */
  routing: Record<string, ModelRouting>;
  retry: RetryConfig;
  breaker: BreakerConfig;
  /** In-flight chat requests beyond which new ones are shed at once with an overloaded error. */
  maxInFlight: number;
  /** In-flight chat requests one client key may hold (from authentication, before its body); beyond it 429. */
  maxInFlightPerKey: number;
  /** Bytes of request bodies being read at once, all requests together; beyond it the overloaded error. */
  maxBodyBytesReading: number;
  /** A request body must be whole within this after its reading starts; beyond it 408. */
  bodyReadTimeoutMs: number;
  /** Over every 2-second window a body must bring this rate (or its rest); slower: 408. */
  minBodyBytesPerSecond: number;
  /** Largest request head (node:http `maxHeaderSize`); beyond it 431. */
  maxHeaderBytes: number;
  /** Time for a client to send its request headers (slow-header protection); beyond it 408. */
  headersTimeoutMs: number;
  /** Time for a client to send its whole request (headers and body); the answer is not limited. */
  requestTimeoutMs: number;
  /** Keep-alive connections per upstream origin (the pool size). */
  upstreamConnections: number;
  upstreamLimits: UpstreamLimits;
  simulator: SimulatorConfig;
  images: ImageFetchConfig;
  responses: z.output<typeof responsesSchema>;
  logLevel: LogLevel;
  /** Where rate limits and budgets live when several processes share them. */
  sharedStore: SharedStoreConfig;
  /** `GET /metrics`: who may scrape it, per-key labels, the series cap. */
  metrics: MetricsConfig;
  /** OTLP trace export (standard OTEL_* variables). */
  tracing: TracingConfig;
}

export interface SharedStoreConfig {
  /** MODELGATE_REDIS_URL: Redis 7 or Valkey; undefined keeps limits and budgets in this process. */
  redisUrl: string | undefined;
  /** Longest wait for one Redis command (a frozen server must not hang requests). */
  commandTimeoutMs: number;
  /** Prefix of every Redis key and channel (several gateways on one Redis). */
  prefix: string;
  /**
   * How long a budget hold lives unless settled: a crashed instance's holds keep the key's budget
   * reserved this long. Undefined: the request's longest wait for an answer plus a minute.
   */
  holdTtlMs: number | undefined;
  /** When Redis cannot answer: refuse with 503 (`closed`) or limit per process (`local`). */
  onStoreFailure: 'closed' | 'local';
  /** Gateway processes sharing the limits (instances × workers), for `local`. */
  instances: number;
}
