/**
 * `modelgate keys create|list|revoke|update`: client keys in the store named by MODELGATE_DB (or
 * the config file's `database`, or `--db PATH`). `create` prints the key once; the store keeps
 * only its hash. A running gateway sees every change within a second.
 */
import { AdminError, keyStatus, keyView, resolveModels } from '../admin/admin-api.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import type { Config } from '../config/config.ts';
import { ModelResolver } from '../gateway/resolve-model.ts';
import type { JsonObject } from '../ir/index.ts';
import {
  KeyStore,
  KeyStoreError,
  type KeyChanges,
  type KeyPolicy,
  type KeyRecord,
} from '../keys/key-store.ts';
import { parseMoment } from '../limits/durations.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { formatTable } from '../usage/report.ts';

export const keysUsage = `usage: modelgate keys create --name NAME [--models A-2,B-1] [--budget-usd 10] [--rpm N] [--tpm N] [--expires 30d]
       modelgate keys list [--all]
       modelgate keys revoke NAME|ID
       modelgate keys update NAME|ID [--name NEW] [--models A-2,B-1|all] [--budget-usd N|none] [--rpm N|none] [--tpm N|none] [--expires 30d|DATE|never]
options: --json (machine-readable output), --db PATH, --config FILE`;

/** Thrown for a mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ParsedArguments {
  positional: string[];
  options: Map<string, string>;
  flags: Set<string>;
}

/** `--name value`, `--name=value`; `flagNames` take no value. */
export function parseArguments(argv: readonly string[], flagNames: readonly string[]): ParsedArguments {
  const positional: string[] = [];
  const options = new Map<string, string>();
  const flags = new Set<string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (!argument.startsWith('--')) {
      positional.push(argument);
      continue;
    }
    const equals = argument.indexOf('=');
    const name = equals === -1 ? argument.slice(2) : argument.slice(2, equals);
    if (flagNames.includes(name)) {
      flags.add(name);
      continue;
    }
    const value = equals === -1 ? argv[++index] : argument.slice(equals + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    options.set(name, value);
  }
  return { positional, options, flags };
}

/** Known options only: a typo is an error, not a silently ignored flag. */
export function checkOptions(parsed: ParsedArguments, allowed: readonly string[]): void {
  for (const name of parsed.options.keys())
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
}

export interface CliContext {
  config: Config;
  database: Database;
}

export function openStore(parsed: ParsedArguments): CliContext {
  const config = loadConfig(process.env, parsed.options.get('config'));
  const path = parsed.options.get('db') ?? config.databasePath;
  return { config, database: openDatabase(path) };
}

/** Runs a CLI command, mapping known errors to a message and an exit code. */
export function runCommand(run: () => void, usage: string): void {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`modelgate: ${error.message}\n${usage}\n`);
      process.exitCode = 2;
    } else if (
      error instanceof KeyStoreError ||
      error instanceof AdminError ||
      error instanceof ConfigError
    ) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exitCode = 1;
    } else throw error;
  }
}

export function runKeys(argv: string[]): Promise<void> {
  runCommand(() => {
    keysCommand(argv);
  }, keysUsage);
  return Promise.resolve();
}

const commonOptions = ['db', 'config'];
const policyOptions = ['models', 'budget-usd', 'rpm', 'tpm', 'expires'];

function keysCommand(argv: string[]): void {
  const [command, ...rest] = argv;
  const parsed = parseArguments(rest, ['json', 'all']);
  const json = parsed.flags.has('json');
  if (command === 'create') {
    checkOptions(parsed, [...commonOptions, 'name', ...policyOptions]);
    const name = parsed.options.get('name');
    if (name === undefined || parsed.positional.length > 0)
      throw new UsageError('keys create needs --name NAME');
    withStore(parsed, ({ config, database }) => {
      const store = new KeyStore(database);
      const { key, record } = store.create(name, policyFrom(parsed, config), Date.now());
      if (json) print({ ...keyView(record, Date.now()), key });
      else
        process.stdout.write(
          `Created key "${record.name}" (id ${record.id}). It is shown only this once; only its hash is stored:\n\n  ${key}\n\n`,
        );
    });
    return;
  }
  if (command === 'list') {
    checkOptions(parsed, commonOptions);
    withStore(parsed, ({ database }) => {
      const records = new KeyStore(database).list(parsed.flags.has('all'));
      const now = Date.now();
      if (json) print({ object: 'list', data: records.map((record) => keyView(record, now)) });
      else process.stdout.write(`${keysTable(records, now)}\n`);
    });
    return;
  }
  if (command === 'revoke' || command === 'update') {
    const [reference, extra] = parsed.positional;
    if (reference === undefined || extra !== undefined)
      throw new UsageError(`keys ${command} needs one NAME or ID`);
    checkOptions(parsed, command === 'revoke' ? commonOptions : [...commonOptions, 'name', ...policyOptions]);
    withStore(parsed, ({ config, database }) => {
      const store = new KeyStore(database);
      const record =
        command === 'revoke'
          ? store.revoke(reference, Date.now())
          : store.update(reference, changesFrom(parsed, config), Date.now());
      if (json) print(keyView(record, Date.now()));
      else
        process.stdout.write(
          `${command === 'revoke' ? 'Revoked' : 'Updated'} key "${record.name}".\n${keysTable([record], Date.now())}\n`,
        );
    });
    return;
  }
  if (command === 'help' || command === '--help') {
    process.stdout.write(`${keysUsage}\n`);
    return;
  }
  throw new UsageError(command === undefined ? 'keys needs a command' : `unknown keys command ${command}`);
}

function withStore(parsed: ParsedArguments, run: (context: CliContext) => void): void {
  const context = openStore(parsed);
  try {
    run(context);
  } finally {
    context.database.close();
  }
}

function policyFrom(parsed: ParsedArguments, config: Config): KeyPolicy {
  const changes = changesFrom(parsed, config);
  return {
    models: changes.models ?? undefined,
    budgetUsd: changes.budgetUsd ?? undefined,
    rpm: changes.rpm ?? undefined,
    tpm: changes.tpm ?? undefined,
    expiresAt: changes.expiresAt ?? undefined,
  };
}

/** The policy options given; `none` (models: `all`, expires: `never`) clears a field. */
function changesFrom(parsed: ParsedArguments, config: Config): KeyChanges {
  const changes: KeyChanges = {};
  const { options } = parsed;
  const name = options.get('name');
  if (name !== undefined) changes.name = name;
  const models = options.get('models');
  if (models !== undefined) {
    changes.models =
      models === 'all' || models === 'none'
        ? null
        : resolveModels(
            models.split(',').filter((model) => model.trim() !== ''),
            new ModelResolver(config),
          );
  }
  const budget = options.get('budget-usd');
  if (budget !== undefined) changes.budgetUsd = budget === 'none' ? null : number(budget, '--budget-usd');
  const rpm = options.get('rpm');
  if (rpm !== undefined) changes.rpm = rpm === 'none' ? null : number(rpm, '--rpm');
  const tpm = options.get('tpm');
  if (tpm !== undefined) changes.tpm = tpm === 'none' ? null : number(tpm, '--tpm');
  const expires = options.get('expires');
  if (expires !== undefined) {
    if (expires === 'never' || expires === 'none') changes.expiresAt = null;
    else {
      const at = parseMoment(expires, Date.now());
      if (at === undefined)
        throw new UsageError('--expires takes a duration (30d, 12h) or a date (2026-12-31)');
      changes.expiresAt = at;
    }
  }
  return changes;
}

function number(text: string, option: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${option} takes a number`);
  return value;
}

function keysTable(records: readonly KeyRecord[], now: number): string {
  if (records.length === 0) return 'No keys.';
  const rows = records.map((record) => {
    return [
      record.name,
      record.id,
      keyStatus(record, now),
      record.models === undefined ? 'all' : record.models.join(','),
      record.budgetUsd === undefined ? '-' : record.budgetUsd.toFixed(2),
      record.spentUsd.toFixed(6),
      record.rpm === undefined ? 'default' : String(record.rpm),
      record.tpm === undefined ? 'default' : String(record.tpm),
      record.expiresAt === undefined ? 'never' : new Date(record.expiresAt).toISOString(),
    ];
  });
  return formatTable(
    ['name', 'id', 'status', 'models', 'budget_usd', 'spent_usd', 'rpm', 'tpm', 'expires'],
    rows,
  );
}

export function print(value: JsonObject): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
