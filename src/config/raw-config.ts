/**
 * The raw configuration the one schema parses: the file's document with the environment laid over
 * it (a variable wins over the file's key; the schema's defaults lie under both), and beside it
 * what only the environment gives (client keys, the admin key, the metrics token, tracing).
 */
import type { EnvironmentOverlay } from './environment.ts';

export interface RawConfig {
  /** The file's document as written: checked on its own too, so a variable never hides its mistake. */
  file: unknown;
  /** The file's document with the variables laid over it: what the gateway runs with. */
  settings: unknown;
  environmentOnly: Record<string, unknown>;
}

export function rawConfig(fileDocument: unknown, environment: EnvironmentOverlay): RawConfig {
  const file = withSectionForms(fileDocument);
  return {
    file,
    settings: overlay(file, environment.raw.settings),
    environmentOnly: environment.raw.environmentOnly,
  };
}

/**
 * The file's shorthand `simulator: true` is its section `{ enabled: true }`, so a variable can set
 * the simulator's pace beside it.
 */
function withSectionForms(document: unknown): unknown {
  if (!isPlainObject(document) || typeof document.simulator !== 'boolean') return document;
  return { ...document, simulator: { enabled: document.simulator } };
}

/**
 * `over`'s values laid over `base`, section by section. Where the file wrote something that is not
 * a section, it stays for the schema to refuse (the variable does not hide the file's mistake).
 */
function overlay(base: unknown, over: Record<string, unknown>): unknown {
  if (base === undefined || base === null) return over;
  if (!isPlainObject(base)) return base;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over))
    merged[key] = isPlainObject(value) ? overlay(base[key], value) : value;
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
