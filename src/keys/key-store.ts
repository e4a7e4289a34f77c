/**
 * Managed client keys in the store: create (the key is returned once, only its SHA-256 hash is
 * kept), list, update, revoke. Used by the CLI and the admin API; the gateway reads the active
 * keys through the cache in `client-keys.ts`. Every statement is parameterised.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../store/database.ts';

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

interface KeyRow {
  id: string;
  name: string;
  created_at: number;
  updated_at: number | null;
  revoked_at: number | null;
  models: string | null;
  budget_usd: number | null;
  rpm: number | null;
  tpm: number | null;
  expires_at: number | null;
  spent_usd: number | null;
}

const recordColumns = `k.id, k.name, k.created_at, k.updated_at, k.revoked_at, k.models, k.budget_usd,
  k.rpm, k.tpm, k.expires_at, s.spent_usd
  FROM client_keys k LEFT JOIN key_spend s ON s.key_id = k.id`;

export const emptyPolicy: KeyPolicy = Object.freeze({
  models: undefined,
  budgetUsd: undefined,
  rpm: undefined,
  tpm: undefined,
  expiresAt: undefined,
});

export class KeyStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Creates a key; the returned `key` is the only time the key itself exists outside the client. */
  create(name: string, policy: KeyPolicy, now: number): { key: string; record: KeyRecord } {
    const checkedName = checkName(name);
    checkPolicy(policy);
    if (this.#activeByName(checkedName) !== undefined) {
      throw new KeyStoreError('conflict', `an active key named "${checkedName}" already exists`);
    }
    const key = generateKey();
    const id = randomUUID();
    this.#database
      .prepare(
        `INSERT INTO client_keys (id, name, key_hash, created_at, models, budget_usd, rpm, tpm, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        checkedName,
        hashKey(key),
        now,
        policy.models === undefined ? null : JSON.stringify(policy.models),
        policy.budgetUsd ?? null,
        policy.rpm ?? null,
        policy.tpm ?? null,
        policy.expiresAt ?? null,
      );
    return { key, record: this.#get(id) };
  }

  /** Keys, newest first; revoked ones only when asked. */
  list(includeRevoked = false): KeyRecord[] {
    const where = includeRevoked ? '' : 'WHERE k.revoked_at IS NULL';
    const rows = this.#database
      .prepare(`SELECT ${recordColumns} ${where} ORDER BY k.created_at DESC, k.name`)
      .all() as unknown as KeyRow[];
    return rows.map(toRecord);
  }

  /** An active key by name, else any key by id. */
  find(reference: string): KeyRecord | undefined {
    const byName = this.#activeByName(reference);
    if (byName !== undefined) return byName;
    const row = this.#database.prepare(`SELECT ${recordColumns} WHERE k.id = ?`).get(reference) as
      KeyRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  update(reference: string, changes: KeyChanges, now: number): KeyRecord {
    const record = this.#require(reference);
    if (record.revokedAt !== undefined)
      throw new KeyStoreError('conflict', `key "${record.name}" is revoked`);
    const assignments: string[] = [];
    const values: (string | number | null)[] = [];
    const set = (column: string, value: string | number | null): void => {
      assignments.push(`${column} = ?`);
      values.push(value);
    };
    if (changes.name !== undefined) {
      const name = checkName(changes.name);
      const holder = this.#activeByName(name);
      if (holder !== undefined && holder.id !== record.id)
        throw new KeyStoreError('conflict', `an active key named "${name}" already exists`);
      set('name', name);
    }
    checkPolicy({
      models: changes.models ?? undefined,
      budgetUsd: changes.budgetUsd ?? undefined,
      rpm: changes.rpm ?? undefined,
      tpm: changes.tpm ?? undefined,
      expiresAt: changes.expiresAt ?? undefined,
    });
    if (changes.models !== undefined)
      set('models', changes.models === null ? null : JSON.stringify(changes.models));
    if (changes.budgetUsd !== undefined) set('budget_usd', changes.budgetUsd);
    if (changes.rpm !== undefined) set('rpm', changes.rpm);
    if (changes.tpm !== undefined) set('tpm', changes.tpm);
    if (changes.expiresAt !== undefined) set('expires_at', changes.expiresAt);
    set('updated_at', now);
    // Column names come from the fixed list above; every value is a parameter.
    this.#database
      .prepare(`UPDATE client_keys SET ${assignments.join(', ')} WHERE id = ?`)
      .run(...values, record.id);
    return this.#get(record.id);
  }

  /** Revokes a key (idempotent); it stays listed with `--all` and in the ledger. */
  revoke(reference: string, now: number): KeyRecord {
    const record = this.#require(reference);
    if (record.revokedAt !== undefined) return record;
    this.#database
      .prepare('UPDATE client_keys SET revoked_at = ?, updated_at = ? WHERE id = ?')
      .run(now, now, record.id);
    return this.#get(record.id);
  }

  /** Every active key with its hash, for the gateway's cache. */
  activeKeys(): ActiveKeyRow[] {
    const rows = this.#database
      .prepare(
        `SELECT id, name, key_hash, models, budget_usd, rpm, tpm, expires_at
         FROM client_keys WHERE revoked_at IS NULL`,
      )
      .all() as unknown as (Omit<KeyRow, 'created_at' | 'updated_at' | 'revoked_at' | 'spent_usd'> & {
      key_hash: string;
    })[];
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      hash: row.key_hash,
      models: parseModels(row.models),
      budgetUsd: row.budget_usd ?? undefined,
      rpm: row.rpm ?? undefined,
      tpm: row.tpm ?? undefined,
      expiresAt: row.expires_at ?? undefined,
    }));
  }

  /** Changes whenever any key row changes (a trigger bumps it): cheap to poll. */
  generation(): number {
    const row = this.#database
      .prepare("SELECT value FROM store_generation WHERE name = 'client_keys'")
      .get() as { value: number } | undefined;
    return row?.value ?? 0;
  }

  /** Lifetime spend per key id, for budgets at start. */
  spend(): Map<string, number> {
    const rows = this.#database.prepare('SELECT key_id, spent_usd FROM key_spend').all() as unknown as {
      key_id: string;
      spent_usd: number;
    }[];
    return new Map(rows.map((row) => [row.key_id, row.spent_usd]));
  }

  /** Id → name for every key ever stored (reports show names, revoked keys included). */
  names(): Map<string, string> {
    const rows = this.#database.prepare('SELECT id, name FROM client_keys').all() as unknown as {
      id: string;
      name: string;
    }[];
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  #activeByName(name: string): KeyRecord | undefined {
    const row = this.#database
      .prepare(`SELECT ${recordColumns} WHERE k.name = ? AND k.revoked_at IS NULL`)
      .get(name) as KeyRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  #get(id: string): KeyRecord {
    const row = this.#database.prepare(`SELECT ${recordColumns} WHERE k.id = ?`).get(id) as
      KeyRow | undefined;
    if (row === undefined) throw new KeyStoreError('not_found', 'no such key');
    return toRecord(row);
  }

  #require(reference: string): KeyRecord {
    const record = this.find(reference);
    if (record === undefined) throw new KeyStoreError('not_found', 'no key with that name or id');
    return record;
  }
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? undefined,
    revokedAt: row.revoked_at ?? undefined,
    models: parseModels(row.models),
    budgetUsd: row.budget_usd ?? undefined,
    rpm: row.rpm ?? undefined,
    tpm: row.tpm ?? undefined,
    expiresAt: row.expires_at ?? undefined,
    spentUsd: row.spent_usd ?? 0,
  };
}

function parseModels(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  const value = JSON.parse(text) as unknown;
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

const maxNameLength = 100;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > maxNameLength || /\p{Cc}/u.test(trimmed)) {
    throw new KeyStoreError(
      'invalid',
      `a key name is 1–${maxNameLength} printable characters without control characters`,
    );
  }
  return trimmed;
}

const maxPerMinute = 1_000_000_000;

function checkPolicy(policy: KeyPolicy): void {
  if (policy.models !== undefined && policy.models.some((model) => model.length === 0 || model.length > 256))
    throw new KeyStoreError('invalid', 'model names are 1–256 characters');
  if (
    policy.budgetUsd !== undefined &&
    (!Number.isFinite(policy.budgetUsd) || policy.budgetUsd < 0 || policy.budgetUsd > 1e9)
  )
    throw new KeyStoreError('invalid', 'a budget is a number of USD from 0 to 1e9');
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
