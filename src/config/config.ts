/** The validated, immutable gateway configuration (env + optional file), built once at startup. */
import type { FamilyId } from '../ir/index.ts';
import type { ModelEntry } from './catalog.ts';

export interface UpstreamConfig {
  /** The part before `/v1`; undefined means the built-in simulator serves the family. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

export interface TimeoutConfig {
  connectMs: number;
  /** Until the upstream's response headers (first byte). */
  firstByteMs: number;
  /** Between two body chunks; a flowing stream has no total cap. */
  idleMs: number;
}

export interface RateLimitConfig {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

export interface SimulatorConfig {
  timeToFirstTokenMs: number;
  interTokenDelayMs: number;
}

export interface Config {
  host: string;
  port: number;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  databasePath: string;
  /** Client keys from MODELGATE_KEYS (plain; hashed on load, never logged). */
  staticKeys: string[];
  /** MODELGATE_ADMIN_KEY: opens `/admin/…`; undefined keeps it closed. Never logged. */
  adminKey: string | undefined;
  /** Requests and tokens per minute per client key and model family (a key may override both). */
  rateLimits: Record<FamilyId, RateLimitConfig>;
  /** On shutdown, how long requests in flight may take to finish before they are cut. */
  drainTimeoutMs: number;
  upstreams: Record<FamilyId, UpstreamConfig>;
  models: ModelEntry[];
  /** alias → catalog name. */
  aliases: Record<string, string>;
  timeouts: TimeoutConfig;
  simulator: SimulatorConfig;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}
