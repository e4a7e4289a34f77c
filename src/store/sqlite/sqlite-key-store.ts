/**
 * Client keys in the embedded store (node:sqlite). Management is `async` only to share the
 * `KeyStore` contract with PostgreSQL (every statement runs at once); as a `KeySource` it answers
 * synchronously from the file, so the gateway's cache can check it on a request's path. Every
 * statement is parameterised.
 */
import type { Database } from './database.ts';
import { staticKeyRenames } from '../static-key-ids.ts';
import {
  activeKeyColumns,
  activeKeyRow,
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
import {
  keyUpdateColumns,
  nameTaken,
  newKeyColumns,
  newKeyRow,
  noKeyByReference,
  noSuchKey,
} from '../../keys/key-writes.ts';

export class SqliteKeyStore implements KeyStore, KeySource {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async create(name: string, policy: KeyPolicy, now: number): Promise<{ key: string; record: KeyRecord }> {
    const row = newKeyRow(name, policy, now);
    if (this.#activeByName(row.name) !== undefined) throw nameTaken(row.name);
    this.#database
      .prepare(`INSERT INTO client_keys (${newKeyColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...row.values);
    return Promise.resolve({ key: row.key, record: this.#get(row.id) });
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
    const { columns } = keyUpdateColumns(record, changes, now, (name) => {
      const holder = this.#activeByName(name);
      if (holder !== undefined && holder.id !== record.id) throw nameTaken(name);
    });
    // Column names come from the fixed list in `changedColumns`; every value is a parameter.
    this.#database
      .prepare(`UPDATE client_keys SET ${columns.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`)
      .run(...columns.map(([, value]) => value), record.id);
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
      .prepare(`SELECT ${activeKeyColumns} FROM client_keys WHERE revoked_at IS NULL`)
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

  async renameKeyIds(renames: ReadonlyMap<string, string>): Promise<void> {
    if (renames.size === 0) return Promise.resolve();
    const statements = staticKeyRenames((index) => `?${index}`).map((sql) => this.#database.prepare(sql));
    this.#database.exec('BEGIN IMMEDIATE');
    try {
      for (const [old, renamed] of renames) for (const statement of statements) statement.run(renamed, old);
      this.#database.exec('COMMIT');
    } catch (error) {
      this.#database.exec('ROLLBACK');
      throw error;
    }
    return Promise.resolve();
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
    if (row === undefined) throw noSuchKey();
    return toRecord(row);
  }

  #require(reference: string): KeyRecord {
    const record = this.#find(reference);
    if (record === undefined) throw noKeyByReference();
    return record;
  }
}
