/**
 * `modelgate keys create|list|revoke|update`: client keys in PostgreSQL when MODELGATE_DATABASE_URL
 * is set, else in the store named by MODELGATE_DB (or the config file's `database`, or `--db PATH`). `create` prints the key once; the store keeps
 * only its hash. A running gateway sees every change within a second.
 */
import { resolveModels } from '../admin/key-input.ts';
import { keyStatus, keyView } from '../admin/keys-api.ts';
import type { Config } from '../config/config.ts';
import { ModelResolver } from '../gateway/resolve-model.ts';
import { isBudgetPeriod, periodNoun, type PeriodBudget } from '../keys/budget-period.ts';
import type { KeyChanges, KeyPolicy, KeyRecord, KeyStore } from '../keys/key-store.ts';
import { parseMoment } from '../limits/durations.ts';
import { formatUsd } from '../usage/money.ts';
import { formatTable } from '../usage/report.ts';
import {
  parseCommandLine,
  print,
  runCommand,
  UsageError,
  withStore,
  type ParsedArguments,
} from './command.ts';

export const keysUsage = `usage: modelgate keys create --name NAME [--models A-2,B-1] [--budget-usd 10] [--period-budget-usd 1 --budget-period daily|weekly|monthly] [--rpm N] [--tpm N] [--expires 30d]
       modelgate keys list [--all]
       modelgate keys revoke NAME|ID
       modelgate keys update NAME|ID [--name NEW] [--models A-2,B-1|all] [--budget-usd N|none] [--period-budget-usd N|none] [--budget-period daily|weekly|monthly] [--rpm N|none] [--tpm N|none] [--expires 30d|DATE|never]
options: --json (machine-readable output), --db PATH, --config FILE`;

export function runKeys(argv: string[]): Promise<void> {
  return runCommand(() => keysCommand(argv), keysUsage);
}

const commonOptions = ['db', 'config'];
const policyOptions = [
  'name',
  'models',
  'budget-usd',
  'period-budget-usd',
  'budget-period',
  'rpm',
  'tpm',
  'expires',
];

async function keysCommand(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help') {
    process.stdout.write(`${keysUsage}\n`);
    return;
  }
  if (command === undefined || !['create', 'list', 'revoke', 'update'].includes(command))
    throw new UsageError(command === undefined ? 'keys needs a command' : `unknown keys command ${command}`);
  const changesPolicy = command === 'create' || command === 'update';
  const parsed = parseCommandLine(
    rest,
    changesPolicy ? [...commonOptions, ...policyOptions] : commonOptions,
    command === 'list' ? ['json', 'all'] : ['json'],
  );
  const json = parsed.flags.has('json');
  if (command === 'create') {
    const name = parsed.options.get('name');
    if (name === undefined || parsed.positional.length > 0)
      throw new UsageError('keys create needs --name NAME');
    await withStore(parsed, async ({ config, stores }) => {
      const { key, record } = await stores.keys.create(name, policyFrom(parsed, config), Date.now());
      if (json) print({ ...keyView(record, Date.now()), key });
      else
        process.stdout.write(
          `Created key "${record.name}" (id ${record.id}). It is shown only this once; only its hash is stored:\n\n  ${key}\n\n`,
        );
    });
    return;
  }
  if (command === 'list') {
    await withStore(parsed, async ({ stores }) => {
      const records = await stores.keys.list(parsed.flags.has('all'));
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
    await withStore(parsed, async ({ config, stores }) => {
      const record =
        command === 'revoke'
          ? await stores.keys.revoke(reference, Date.now())
          : await stores.keys.update(
              reference,
              changesFrom(parsed, config, await periodBudgetNow(parsed, stores.keys, reference)),
              Date.now(),
            );
      if (json) print(keyView(record, Date.now()));
      else
        process.stdout.write(
          `${command === 'revoke' ? 'Revoked' : 'Updated'} key "${record.name}".\n${keysTable([record], Date.now())}\n`,
        );
    });
    return;
  }
}

function policyFrom(parsed: ParsedArguments, config: Config): KeyPolicy {
  const changes = changesFrom(parsed, config);
  return {
    models: changes.models ?? undefined,
    budgetUsd: changes.budgetUsd ?? undefined,
    periodBudget: changes.periodBudget ?? undefined,
    rpm: changes.rpm ?? undefined,
    tpm: changes.tpm ?? undefined,
    expiresAt: changes.expiresAt ?? undefined,
  };
}

/** The policy options given; `none` (models: `all`, expires: `never`) clears a field. */
function changesFrom(parsed: ParsedArguments, config: Config, current?: PeriodBudget): KeyChanges {
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
  const periodBudget = periodBudgetFrom(parsed, current);
  if (periodBudget !== undefined) changes.periodBudget = periodBudget;
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

/**
 * `--period-budget-usd N --budget-period daily|weekly|monthly` (`none` clears it); an update may
 * give one and keep the key's other (`current`).
 */
function periodBudgetFrom(
  parsed: ParsedArguments,
  current: PeriodBudget | undefined,
): PeriodBudget | null | undefined {
  const amount = parsed.options.get('period-budget-usd');
  const period = parsed.options.get('budget-period');
  if (amount === 'none') return null;
  if (amount === undefined && period === undefined) return undefined;
  if (period !== undefined && !isBudgetPeriod(period))
    throw new UsageError('--budget-period is daily, weekly or monthly');
  const usd = amount === undefined ? current?.usd : number(amount, '--period-budget-usd');
  const which = period ?? current?.period;
  if (usd === undefined || which === undefined)
    throw new UsageError('a periodic budget needs --period-budget-usd and --budget-period');
  return { period: which, usd };
}

/** The key's periodic budget, when an update gives only one half of a new one. */
async function periodBudgetNow(
  parsed: ParsedArguments,
  keys: KeyStore,
  reference: string,
): Promise<PeriodBudget | undefined> {
  const { options } = parsed;
  if (options.has('period-budget-usd') === options.has('budget-period')) return undefined;
  return (await keys.find(reference))?.periodBudget;
}

function number(text: string, option: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${option} takes a number`);
  return value;
}

/** Money in a column headed `…_usd`: the one formatter's digits, without the dollar sign. */
function usdFigure(value: number): string {
  return formatUsd(value).replace('$', '');
}

function keysTable(records: readonly KeyRecord[], now: number): string {
  if (records.length === 0) return 'No keys.';
  const rows = records.map((record) => {
    return [
      record.name,
      record.id,
      keyStatus(record, now),
      record.models === undefined ? 'all' : record.models.join(','),
      record.budgetUsd === undefined ? '-' : usdFigure(record.budgetUsd),
      usdFigure(record.spentUsd),
      record.periodBudget === undefined
        ? '-'
        : `${usdFigure(record.periodBudget.usd)}/${periodNoun(record.periodBudget.period)}`,
      record.rpm === undefined ? 'default' : String(record.rpm),
      record.tpm === undefined ? 'default' : String(record.tpm),
      record.expiresAt === undefined ? 'never' : new Date(record.expiresAt).toISOString(),
    ];
  });
  return formatTable(
    ['name', 'id', 'status', 'models', 'budget_usd', 'spent_usd', 'period_budget', 'rpm', 'tpm', 'expires'],
    rows,
  );
}
