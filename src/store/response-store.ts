/**
 * Stored Responses API answers (`previous_response_id`, `GET`/`DELETE /v1/responses/{id}`): the
 * answer and the whole input it answered, owned by the client key that created it, kept for the
 * configured retention. A key sees only its own: any other key's id reads as not found. Two stores
 * keep them: the embedded one here and PostgreSQL (`postgres/pg-response-store.ts`).
 */
import type { StatementSync } from 'node:sqlite';
import type { JsonObject, JsonValue } from '../ir/index.ts';
import type { Database } from './database.ts';

export interface StoredResponse {
  id: string;
  /** The conversation this answer followed: earlier turns' input and output, then its own input. */
  inputItems: JsonValue[];
  /** The `response` object as the client received it. */
  response: JsonObject;
}

export interface ResponseStore {
  get(id: string, keyId: string): Promise<StoredResponse | undefined>;
  put(keyId: string, stored: StoredResponse): Promise<void>;
  /** True when the key had this response (and it is gone now). */
  delete(id: string, keyId: string): Promise<boolean>;
  /** Removes every expired response; returns how many. */
  purge(): Promise<number>;
}

export interface StoredRow {
  input_items: string;
  response: string;
}

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
      'SELECT input_items, response FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?',
    );
    this.#insert = database.prepare(
      `INSERT OR REPLACE INTO responses (id, key_id, created_at, expires_at, input_items, response)
       VALUES (?, ?, ?, ?, ?, ?)`,
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
    this.#insert.run(
      stored.id,
      keyId,
      now,
      now + this.#retentionMs,
      JSON.stringify(stored.inputItems),
      JSON.stringify(stored.response),
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

/** A stored row (JSON text in both stores) as the caller gets it. */
export function storedResponse(id: string, row: StoredRow): StoredResponse {
  return {
    id,
    inputItems: JSON.parse(row.input_items) as JsonValue[],
    response: JSON.parse(row.response) as JsonObject,
  };
}
