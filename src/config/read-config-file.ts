/** Reads the config file: YAML or JSON (JSON is YAML), secrets expanded, then validated by the schema. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { expandSecrets } from './expand-secrets.ts';
import { fileSchema, type ConfigFile } from './file-schema.ts';

/** Reads and validates the file at `path`; `${…}` references come from `environment` (expand-secrets.ts). */
export function readConfigFile(path: string, environment: Environment = process.env): ConfigFile {
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
  let expanded: unknown;
  try {
    expanded = expandSecrets(raw ?? {}, environment);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`config file ${path}: ${error.message}`);
    throw error;
  }
  const parsed = fileSchema.safeParse(expanded);
  if (!parsed.success)
    throw new ConfigError(`config file ${path} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
