/** Reading environment variables: blank is unset, malformed values are a ConfigError naming the variable. */
import { ConfigError } from './config-error.ts';

export type Environment = Readonly<Record<string, string | undefined>>;

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export function staticKeysOf(environment: Environment): string[] {
  return (environment.MODELGATE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function environmentPort(value: string | undefined): number | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be 0–65535, got ${text}`);
  return port;
}

export function environmentInteger(environment: Environment, name: string): number | undefined {
  const text = nonEmpty(environment[name]);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a whole number ≥ 0`);
  return value;
}

/** `1`/`true` or `0`/`false`; unset is undefined. */
export function environmentFlag(environment: Environment, name: string): boolean | undefined {
  const text = nonEmpty(environment[name])?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new ConfigError(`${name} must be 1, true, 0 or false`);
}

export function logLevel(value: string | undefined): LogLevel | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const found = logLevels.find((level) => level === text);
  if (found === undefined) throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);
  return found;
}
