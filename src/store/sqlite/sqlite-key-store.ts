/**
 * Client keys in the embedded store (node:sqlite). Management is `async` only to share the
 * `KeyStore` contract with PostgreSQL (every statement runs at once); as a `KeySource` it answers
 * synchronously from the file, so the gateway's cache can check it on a request's path. Every
 * statement is parameterised.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from './database.ts';
import {
  activeKeyRow,
  changedColumns,
  checkChanges,
  checkName,
  checkPolicy,
  generateKey,
  hashKey,
  KeyStoreError,
  recordColumns,
  toRecord,
  type ActiveKeyRow,
  type KeyChanges,
  type KeyPolicy,
  type KeyRecord,
  type KeyRow,
  type KeySource,
  type KeyStore,
} from '../../keys/key-store.ts';

export class SqliteKeyStore implements KeyStore, KeySource {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async create(name: string, policy: KeyPolicy, now: number): Promise<{ key: string; record: KeyRecord }> {
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
    return Promise.resolve({ key, record: this.#get(id) });
  }

  async list(includeRevoked = false): Promise<KeyRecord[]> {
    const where = includeRevoked ? '' : 'WHERE k.revoked_at IS NULL';
    const rows = this.#database
      .prepare(`SELECT ${recordColumns} ${where} ORDER BY k.created_at DESC, k.name`)
      .all() as unknown as KeyRow[];
    return Promise.resolve(rows.map(toRecord));
  }

  async find(reference: string): Promise<KeyRecord | undefined> {
    return Promise.resolve(this.#find(reference));
  }

  async update(reference: string, changes: KeyChanges, now: number): Promise<KeyRecord> {
    const record = this.#require(reference);
    if (record.revokedAt !== undefined)
      throw new KeyStoreError('conflict', `key "${record.name}" is revoked`);
    const assignments: string[] = [];
    const values: (string | number | null)[] = [];
    if (changes.name !== undefined) {
      const name = checkName(changes.name);
      const holder = this.#activeByName(name);
      if (holder !== undefined && holder.id !== record.id)
        throw new KeyStoreError('conflict', `an active key named "${name}" already exists`);
      assignments.push('name = ?');
      values.push(name);
    }
    checkChanges(changes);
    for (const [column, value] of [...changedColumns(changes), ['updated_at', now] as const]) {
      assignments.push(`${column} = ?`);
      values.push(value);
    }
    // Column names come from the fixed list in `changedColumns`; every value is a parameter.
    this.#database
      .prepare(`UPDATE client_keys SET ${assignments.join(', ')} WHERE id = ?`)
      .run(...values, record.id);
    return Promise.resolve(this.#get(record.id));
  }

  async revoke(reference: string, now: number): Promise<KeyRecord> {
    const record = this.#require(reference);
    if (record.revokedAt !== undefined) return record;
    this.#database
      .prepare('UPDATE client_keys SET revoked_at = ?, updated_at = ? WHERE id = ?')
      .run(now, now, record.id);
    return Promise.resolve(this.#get(record.id));
  }

  activeKeys(): ActiveKeyRow[] {
    const rows = this.#database
      .prepare(
        `SELECT id, name, key_hash, models, budget_usd, rpm, tpm, expires_at
         FROM client_keys WHERE revoked_at IS NULL`,
      )
      .all() as unknown as Parameters<typeof activeKeyRow>[0][];
    return rows.map(activeKeyRow);
  }

  /** A trigger bumps it on every change to a key row. */
  generation(): number {
    const row = this.#database
      .prepare("SELECT value FROM store_generation WHERE name = 'client_keys'")
      .get() as { value: number } | undefined;
    return row?.value ?? 0;
  }

  async spend(): Promise<Map<string, number>> {
    const rows = this.#database.prepare('SELECT key_id, spent_usd FROM key_spend').all() as unknown as {
      key_id: string;
      spent_usd: number;
    }[];
    return Promise.resolve(new Map(rows.map((row) => [row.key_id, row.spent_usd])));
  }

  async names(): Promise<Map<string, string>> {
    const rows = this.#database.prepare('SELECT id, name FROM client_keys').all() as unknown as {
      id: string;
      name: string;
    }[];
    return Promise.resolve(new Map(rows.map((row) => [row.id, row.name])));
  }

  #find(reference: string): KeyRecord | undefined {
    const byName = this.#activeByName(reference);
    if (byName !== undefined) return byName;
    const row = this.#database.prepare(`SELECT ${recordColumns} WHERE k.id = ?`).get(reference) as
      KeyRow | undefined;
    return row === undefined ? undefined : toRecord(row);
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
    const record = this.#find(reference);
    if (record === undefined) throw new KeyStoreError('not_found', 'no key with that name or id');
    return record;
  }
}
