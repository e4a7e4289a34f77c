/**
 * Client keys in PostgreSQL: the same contract and checks as the embedded store. Two instances
 * creating or renaming to one name at once cannot both win: the partial unique index on active
 * names refuses the second (a conflict, as the check before it would have said).
 */
import {
  recordColumns,
  toRecord,
  type KeyChanges,
  type KeyPolicy,
  type KeyRecord,
  type KeyRow,
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
import type { PgConnection } from './connection.ts';
import { staticKeyRenames } from '../static-key-ids.ts';

export class PgKeyStore implements KeyStore {
  readonly #connection: PgConnection;

  constructor(connection: PgConnection) {
    this.#connection = connection;
  }

  async create(name: string, policy: KeyPolicy, now: number): Promise<{ key: string; record: KeyRecord }> {
    const row = newKeyRow(name, policy, now);
    await this.#changing(row.name, () =>
      this.#connection.query(
        `INSERT INTO client_keys (${newKeyColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        row.values,
      ),
    );
    return { key: row.key, record: await this.#get(row.id) };
  }

  async list(includeRevoked = false): Promise<KeyRecord[]> {
    const where = includeRevoked ? '' : 'WHERE k.revoked_at IS NULL';
    const rows = await this.#connection.query<KeyRow>(
      `SELECT ${recordColumns} ${where} ORDER BY k.created_at DESC, k.name`,
    );
    return rows.map(toRecord);
  }

  async find(reference: string): Promise<KeyRecord | undefined> {
    // An active key by name first, else any key by id: one statement.
    const [row] = await this.#connection.query<KeyRow>(
      `SELECT ${recordColumns}
       WHERE (k.name = $1 AND k.revoked_at IS NULL) OR k.id = $1
       ORDER BY (k.name = $1 AND k.revoked_at IS NULL) DESC LIMIT 1`,
      [reference],
    );
    return row === undefined ? undefined : toRecord(row);
  }

  async update(reference: string, changes: KeyChanges, now: number): Promise<KeyRecord> {
    const record = await this.#require(reference);
    const { name, columns } = keyUpdateColumns(record, changes, now);
    // Column names come from the fixed list in `changedColumns`; every value is a parameter.
    const assignments = columns.map(([column], index) => `${column} = $${index + 1}`);
    await this.#changing(name, () =>
      this.#connection.query(
        `UPDATE client_keys SET ${assignments.join(', ')} WHERE id = $${columns.length + 1}`,
        [...columns.map(([, value]) => value), record.id],
      ),
    );
    return this.#get(record.id);
  }

  async revoke(reference: string, now: number): Promise<KeyRecord> {
    const record = await this.#require(reference);
    if (record.revokedAt !== undefined) return record;
    await this.#connection.query(
      'UPDATE client_keys SET revoked_at = $1, updated_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [now, record.id],
    );
    return this.#get(record.id);
  }

  async renameKeyIds(renames: ReadonlyMap<string, string>): Promise<void> {
    if (renames.size === 0) return;
    const statements = staticKeyRenames((index) => `$${index}`);
    await this.#connection.transaction(async (query) => {
      for (const [old, renamed] of renames) for (const sql of statements) await query(sql, [renamed, old]);
    });
  }

  async spend(): Promise<Map<string, number>> {
    const rows = await this.#connection.query<{ key_id: string; spent_usd: number }>(
      'SELECT key_id, spent_usd FROM key_spend',
    );
    return new Map(rows.map((row) => [row.key_id, row.spent_usd]));
  }

  async names(): Promise<Map<string, string>> {
    const rows = await this.#connection.query<{ id: string; name: string }>(
      'SELECT id, name FROM client_keys',
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Runs a write that may take an active name; the unique index's refusal is a conflict. */
  async #changing(name: string | undefined, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if ((error as { code?: unknown }).code === '23505' && name !== undefined) throw nameTaken(name);
      throw error;
    }
  }

  async #get(id: string): Promise<KeyRecord> {
    const [row] = await this.#connection.query<KeyRow>(`SELECT ${recordColumns} WHERE k.id = $1`, [id]);
    if (row === undefined) throw noSuchKey();
    return toRecord(row);
  }

  async #require(reference: string): Promise<KeyRecord> {
    const record = await this.find(reference);
    if (record === undefined) throw noKeyByReference();
    return record;
  }
}
