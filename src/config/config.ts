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
  upstreams: Record<FamilyId, UpstreamConfig>;
  models: ModelEntry[];
  /** alias → catalog name. */
  aliases: Record<string, string>;
  timeouts: TimeoutConfig;
  simulator: SimulatorConfig;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}
