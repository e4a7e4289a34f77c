/** Stored Responses API answers (store/response-store.ts) in the embedded file. */
import type { StatementSync } from 'node:sqlite';
import {
  storedResponse,
  storedTexts,
  type ResponseStore,
  type StoredResponse,
  type StoredRow,
} from '../response-store.ts';
import type { Database } from './database.ts';

/** The embedded store: each call runs its statement at once (the promise is already settled). */
export class SqliteResponseStore implements ResponseStore {
  readonly #retentionMs: number;
  readonly #clock: () => number;
  readonly #select: StatementSync;
  readonly #insert: StatementSync;
  readonly #delete: StatementSync;
  readonly #purge: StatementSync;

  constructor(database: Database, retentionMs: number, clock: () => number = Date.now) {
    this.#retentionMs = retentionMs;
    this.#clock = clock;
    this.#select = database.prepare(
      'SELECT input_items, response, previous_id FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?',
    );
    this.#insert = database.prepare(
      `INSERT OR REPLACE INTO responses (id, key_id, created_at, expires_at, input_items, response, previous_id)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#delete = database.prepare('DELETE FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?');
    this.#purge = database.prepare('DELETE FROM responses WHERE expires_at <= ?');
  }

  async get(id: string, keyId: string): Promise<StoredResponse | undefined> {
    const row = this.#select.get(id, keyId, this.#clock()) as StoredRow | undefined;
    return Promise.resolve(row === undefined ? undefined : storedResponse(id, row));
  }

  async put(keyId: string, stored: StoredResponse): Promise<void> {
    const now = this.#clock();
    const texts = storedTexts(stored);
    this.#insert.run(
      stored.id,
      keyId,
      now,
      now + this.#retentionMs,
      texts.inputItems,
      texts.response,
      stored.previousId ?? null,
    );
    return Promise.resolve();
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return Promise.resolve(Number(this.#delete.run(id, keyId, this.#clock()).changes) > 0);
  }

  async purge(): Promise<number> {
    return Promise.resolve(Number(this.#purge.run(this.#clock()).changes));
  }
}
