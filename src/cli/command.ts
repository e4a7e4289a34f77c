/**
 * What the store commands (`keys`, `usage`) share: the command line read with node:util
 * `parseArgs` (strict: an unknown option or a missing value is a usage error, not a silently
 * ignored flag), the store the options name, and the mapping of known errors to exit codes.
 */
import { parseArgs } from 'node:util';
import { AdminError } from '../admin/admin-error.ts';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import type { JsonObject } from '../ir/index.ts';
import { KeyStoreError } from '../keys/key-store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { openStores, type Stores } from '../store/stores.ts';

/** Thrown for a mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ParsedArguments {
  positional: string[];
  /** Options that take a value (`--name value` or `--name=value`). */
  options: Map<string, string>;
  /** Options that take none. */
  flags: Set<string>;
}

/** `valueOptions` take a value, `flagNames` none; anything else is a `UsageError`. */
export function parseCommandLine(
  argv: readonly string[],
  valueOptions: readonly string[],
  flagNames: readonly string[] = [],
): ParsedArguments {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of valueOptions) options[name] = { type: 'string' };
  for (const name of flagNames) options[name] = { type: 'boolean' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw commandLineMistake(error) ?? error;
  }
  const result: ParsedArguments = { positional: parsed.positionals, options: new Map(), flags: new Set() };
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') result.options.set(name, value);
    else if (value === true) result.flags.add(name);
  }
  return result;
}

/**
 * parseArgs reports command-line mistakes as TypeErrors with an ERR_PARSE_ARGS_* code and a long
 * message; the user gets the short form (`unknown option --x`, `--name needs a value`).
 */
function commandLineMistake(error: unknown): UsageError | undefined {
  if (!(error instanceof TypeError)) return undefined;
  const code = String((error as { code?: unknown }).code);
  if (!code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1];
  if (option === undefined) return new UsageError(error.message);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return new UsageError(
      error.message.includes('argument missing') ? `${option} needs a value` : `${option} takes no value`,
    );
  return new UsageError(error.message);
}

export interface CliContext {
  config: Config;
  stores: Stores;
}

/** The config, with `--db PATH` naming the embedded store's file (PostgreSQL, when configured, wins). */
export function commandConfig(parsed: ParsedArguments): Config {
  const config = loadConfig(process.env, parsed.options.get('config'));
  const path = parsed.options.get('db');
  return path === undefined ? config : { ...config, databasePath: path };
}

/** Opens the store the options name, runs `run` with it, and closes it. */
export async function withStore<T>(
  parsed: ParsedArguments,
  run: (context: CliContext) => Promise<T>,
): Promise<T> {
  const config = commandConfig(parsed);
  const stores = await openStores(config);
  try {
    return await run({ config, stores });
  } finally {
    await stores.close();
  }
}

/** Runs a CLI command, mapping known errors to a message and an exit code. */
export async function runCommand(run: () => Promise<void>, usage: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`modelgate: ${error.message}\n${usage}\n`);
      process.exitCode = 2;
    } else if (
      error instanceof KeyStoreError ||
      error instanceof AdminError ||
      error instanceof ConfigError ||
      error instanceof StoreUnavailableError
    ) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exitCode = 1;
    } else throw error;
  }
}

export function print(value: JsonObject): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
