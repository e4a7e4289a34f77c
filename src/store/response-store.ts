/**
 * Stored Responses API answers (`previous_response_id`, `GET`/`DELETE /v1/responses/{id}`): the
 * answer and the whole input it answered, owned by the client key that created it, kept for the
 * configured retention. A key sees only its own: any other key's id reads as not found.
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

interface Row {
  input_items: string;
  response: string;
}

export class ResponseStore {
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

  get(id: string, keyId: string): StoredResponse | undefined {
    const row = this.#select.get(id, keyId, this.#clock()) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      id,
      inputItems: JSON.parse(row.input_items) as JsonValue[],
      response: JSON.parse(row.response) as JsonObject,
    };
  }

  put(keyId: string, stored: StoredResponse): void {
    const now = this.#clock();
    this.#insert.run(
      stored.id,
      keyId,
      now,
      now + this.#retentionMs,
      JSON.stringify(stored.inputItems),
      JSON.stringify(stored.response),
    );
  }

  /** True when the key had this response (and it is gone now). */
  delete(id: string, keyId: string): boolean {
    return Number(this.#delete.run(id, keyId, this.#clock()).changes) > 0;
  }

  /** Removes every expired response; returns how many. */
  purge(): number {
    return Number(this.#purge.run(this.#clock()).changes);
  }
}
