/**
 * Reads the config file: YAML or JSON (JSON is YAML), its secrets expanded. The document is
 * validated with the environment laid over it, by the one schema (load-config.ts).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { expandSecrets } from './expand-secrets.ts';

/** The document at `path`; `${…}` references come from `environment` (expand-secrets.ts). */
export function readConfigDocument(path: string, environment: Environment): unknown {
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
  try {
    return expandSecrets(raw ?? {}, environment);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`config file ${path}: ${error.message}`);
    throw error;
  }
}
