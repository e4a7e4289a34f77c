/**
 * Builds the Config from environment variables and an optional YAML/JSON file: the environment is
 * laid over the file's document (environment.ts, raw-config.ts), and one schema parses the whole
 * once, with its defaults and cross-field checks (config-schema.ts, runtime-config.ts).
 */
import type { Config } from './config.ts';
import { configErrorOf } from './config-issues.ts';
import { environmentOverlay, nonEmpty, type Environment } from './environment.ts';
import { rawConfig } from './raw-config.ts';
import { readConfigDocument } from './read-config-file.ts';
import { configSchema } from './runtime-config.ts';

export { ConfigError } from './config-error.ts';
export type { Environment } from './environment.ts';

export function loadConfig(environment: Environment, configPath?: string): Config {
  const path = configPath ?? nonEmpty(environment.MODELGATE_CONFIG);
  const document = path === undefined ? {} : readConfigDocument(path, environment);
  const overlay = environmentOverlay(environment);
  const parsed = configSchema.safeParse(rawConfig(document, overlay));
  if (!parsed.success) throw configErrorOf(parsed.error, overlay, path);
  return parsed.data;
}
