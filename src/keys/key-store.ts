/**
 * Managed client keys: what a key store does (create — the key is returned once, only its SHA-256
 * hash is kept —, list, update, revoke), the checks every store applies, and the row shape both
 * stores share. Two stores implement it: the embedded one (`store/sqlite/sqlite-key-store.ts`) and PostgreSQL
 * (`store/postgres/pg-key-store.ts`). Used by the CLI and the admin API; the gateway reads the
 * active keys through the cache in `client-keys.ts`, from a `KeySource`.
 */
import { hash, randomBytes } from 'node:crypto';
import { isBudgetPeriod, type PeriodBudget } from './budget-period.ts';

/** One-shot SHA-256 (no Hash object per call): this runs on every authenticated request. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateKey(): string {
  return `mg-${randomBytes(24).toString('base64url')}`;
}

/** What an operator may restrict on a key. `undefined` everywhere means "no restriction". */
export interface KeyPolicy {
  /** Catalog names the key may call; undefined: every model. */
  models: readonly string[] | undefined;
  /** Lifetime spend cap in USD. */
  budgetUsd: number | undefined;
  /** Spend cap per UTC day, week or month, beside the lifetime one. */
  periodBudget: PeriodBudget | undefined;
  /** Requests per minute per model family (overrides the family's default). */
  rpm: number | undefined;
  /** Tokens per minute per model family (overrides the family's default). */
  tpm: number | undefined;
  /** Unix milliseconds after which the key is refused. */
  expiresAt: number | undefined;
}

/** A stored key as listings show it: never the key, never its hash. */
export interface KeyRecord extends KeyPolicy {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number | undefined;
  revokedAt: number | undefined;
  spentUsd: number;
}

/** An active key as the gateway's cache holds it (the hash is the lookup key, never shown). */
export interface ActiveKeyRow extends KeyPolicy {
  id: string;
  name: string;
  hash: string;
}

/** Changes for `update`: undefined leaves a field as it is, null clears it. */
export interface KeyChanges {
  name?: string;
  models?: readonly string[] | null;
  budgetUsd?: number | null;
  periodBudget?: PeriodBudget | null;
  rpm?: number | null;
  tpm?: number | null;
  expiresAt?: number | null;
}

export type KeyStoreErrorKind = 'invalid' | 'not_found' | 'conflict';

export class KeyStoreError extends Error {
  override name = 'KeyStoreError';
  readonly kind: KeyStoreErrorKind;

  constructor(kind: KeyStoreErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * Key management, asynchronous so that a store over the network fits; never on a request's path.
 * Names are unique among active keys; `reference` is an active key's name or any key's id.
 */
export interface KeyStore {
  /** Creates a key; the returned `key` is the only time the key itself exists outside the client. */
  create(name: string, policy: KeyPolicy, now: number): Promise<{ key: string; record: KeyRecord }>;
  /** Keys, newest first; revoked ones only when asked. */
  list(includeRevoked?: boolean): Promise<KeyRecord[]>;
  /** An active key by name, else any key by id. */
  find(reference: string): Promise<KeyRecord | undefined>;
  update(reference: string, changes: KeyChanges, now: number): Promise<KeyRecord>;
  /** Revokes a key (idempotent); it stays listed with `--all` and in the ledger. */
  revoke(reference: string, now: number): Promise<KeyRecord>;
  /** Lifetime spend per key id, for budgets at start. */
  spend(): Promise<Map<string, number>>;
  /**
   * Moves what is kept under each old id (spend, ledger rows and their rollups, stored responses)
   * to its new id, in one transaction; ids not in use change nothing. Static keys' positional ids
   * at start (`store/static-key-ids.ts`).
   */
  renameKeyIds(renames: ReadonlyMap<string, string>): Promise<void>;
  /** Id → name for every key ever stored (reports show names, revoked keys included). */
  names(): Promise<Map<string, string>>;
}

/**
 * Where the gateway's key cache reads the active keys: synchronous, because the cache checks it on
 * a request's path — the embedded store answers from its file, the PostgreSQL store from a copy in
 * memory that it refreshes in the background.
 */
export interface KeySource {
  /** Changes whenever any key changed: cheap to poll. */
  generation(): number;
  /** Every active key with its hash. */
  activeKeys(): ActiveKeyRow[];
  /** Brings the source up to date now (a change made here, or pushed from another instance). */
  refresh?(): Promise<void>;
}

/** A key row as both stores' SQL returns it (times in Unix milliseconds, models as JSON text). */
export interface KeyRow {
  id: string;
  name: string;
  created_at: number;
  updated_at: number | null;
  revoked_at: number | null;
  models: string | null;
  budget_usd: number | null;
  budget_period: string | null;
  period_budget_usd: number | null;
  rpm: number | null;
  tpm: number | null;
  expires_at: number | null;
  spent_usd: number | null;
}

/** The columns of a `KeyRecord` (`k`: client_keys, `s`: key_spend), in both SQL dialects. */
export const recordColumns = `k.id, k.name, k.created_at, k.updated_at, k.revoked_at, k.models, k.budget_usd,
  k.budget_period, k.period_budget_usd, k.rpm, k.tpm, k.expires_at, s.spent_usd
  FROM client_keys k LEFT JOIN key_spend s ON s.key_id = k.id`;

/** The columns of an `ActiveKeyRow` (from client_keys), in both SQL dialects. */
export const activeKeyColumns =
  'id, name, key_hash, models, budget_usd, budget_period, period_budget_usd, rpm, tpm, expires_at';

export const emptyPolicy: KeyPolicy = Object.freeze({
  models: undefined,
  budgetUsd: undefined,
  periodBudget: undefined,
  rpm: undefined,
  tpm: undefined,
  expiresAt: undefined,
});

/** The policy fields a `KeyChanges` sets, checked like a new key's. */
export function checkChanges(changes: KeyChanges): void {
  checkPolicy({
    models: changes.models ?? undefined,
    budgetUsd: changes.budgetUsd ?? undefined,
    periodBudget: changes.periodBudget ?? undefined,
    rpm: changes.rpm ?? undefined,
    tpm: changes.tpm ?? undefined,
    expiresAt: changes.expiresAt ?? undefined,
  });
}

/** `column → value` for the fields a `KeyChanges` sets (name excluded: checked by the caller). */
export function changedColumns(changes: KeyChanges): [string, string | number | null][] {
  const columns: [string, string | number | null][] = [];
  if (changes.models !== undefined)
    columns.push(['models', changes.models === null ? null : JSON.stringify(changes.models)]);
  if (changes.budgetUsd !== undefined) columns.push(['budget_usd', changes.budgetUsd]);
  if (changes.periodBudget !== undefined)
    columns.push(
      ['budget_period', changes.periodBudget?.period ?? null],
      ['period_budget_usd', changes.periodBudget?.usd ?? null],
    );
  if (changes.rpm !== undefined) columns.push(['rpm', changes.rpm]);
  if (changes.tpm !== undefined) columns.push(['tpm', changes.tpm]);
  if (changes.expiresAt !== undefined) columns.push(['expires_at', changes.expiresAt]);
  return columns;
}

export function activeKeyRow(
  row: Pick<
    KeyRow,
    | 'id'
    | 'name'
    | 'models'
    | 'budget_usd'
    | 'budget_period'
    | 'period_budget_usd'
    | 'rpm'
    | 'tpm'
    | 'expires_at'
  > & {
    key_hash: string;
  },
): ActiveKeyRow {
  return {
    id: row.id,
    name: row.name,
    hash: row.key_hash,
    models: parseModels(row.models),
    budgetUsd: row.budget_usd ?? undefined,
    periodBudget: periodBudgetOf(row),
    rpm: row.rpm ?? undefined,
    tpm: row.tpm ?? undefined,
    expiresAt: row.expires_at ?? undefined,
  };
}

export function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? undefined,
    revokedAt: row.revoked_at ?? undefined,
    models: parseModels(row.models),
    budgetUsd: row.budget_usd ?? undefined,
    periodBudget: periodBudgetOf(row),
    rpm: row.rpm ?? undefined,
    tpm: row.tpm ?? undefined,
    expiresAt: row.expires_at ?? undefined,
    spentUsd: row.spent_usd ?? 0,
  };
}

function periodBudgetOf(row: Pick<KeyRow, 'budget_period' | 'period_budget_usd'>): PeriodBudget | undefined {
  const period = row.budget_period;
  if (!isBudgetPeriod(period) || row.period_budget_usd === null) return undefined;
  return { period, usd: row.period_budget_usd };
}

function parseModels(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  const value = JSON.parse(text) as unknown;
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

const maxNameLength = 100;

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > maxNameLength || /\p{Cc}/u.test(trimmed)) {
    throw new KeyStoreError(
      'invalid',
      `a key name is 1–${maxNameLength} printable characters without control characters`,
    );
  }
  // Static keys' ids (`static-…`): a stored key so named would stand for one in usage reports.
  if (/^static-/i.test(trimmed))
    throw new KeyStoreError('invalid', 'a key name may not begin with "static-": static keys are named so');
  return trimmed;
}

const maxPerMinute = 1_000_000_000;

export function checkPolicy(policy: KeyPolicy): void {
  if (policy.models !== undefined && policy.models.some((model) => model.length === 0 || model.length > 256))
    throw new KeyStoreError('invalid', 'model names are 1–256 characters');
  if (
    policy.budgetUsd !== undefined &&
    (!Number.isFinite(policy.budgetUsd) || policy.budgetUsd < 0 || policy.budgetUsd > 1e9)
  )
    throw new KeyStoreError('invalid', 'a budget is a number of USD from 0 to 1e9');
  const period = policy.periodBudget;
  if (period !== undefined && !isBudgetPeriod(period.period))
    throw new KeyStoreError('invalid', 'a budget period is daily, weekly or monthly');
  if (period !== undefined && (!Number.isFinite(period.usd) || period.usd < 0 || period.usd > 1e9))
    throw new KeyStoreError('invalid', 'a period budget is a number of USD from 0 to 1e9');
  for (const [label, value] of [
    ['rpm', policy.rpm],
    ['tpm', policy.tpm],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > maxPerMinute))
      throw new KeyStoreError('invalid', `${label} is a whole number from 1 to ${maxPerMinute}`);
  }
  if (policy.expiresAt !== undefined && !Number.isFinite(policy.expiresAt))
    throw new KeyStoreError('invalid', 'expiry is not a valid time');
}
