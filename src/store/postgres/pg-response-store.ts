/** Stored Responses API answers in PostgreSQL: the embedded store's contract and rules, per key. */
import {
  storedResponse,
  storedTexts,
  type ResponseStore,
  type StoredResponse,
  type StoredRow,
} from '../response-store.ts';
import type { PgConnection } from './connection.ts';

export class PgResponseStore implements ResponseStore {
  readonly #connection: PgConnection;
  readonly #retentionMs: number;
  readonly #clock: () => number;

  constructor(connection: PgConnection, retentionMs: number, clock: () => number = Date.now) {
    this.#connection = connection;
    this.#retentionMs = retentionMs;
    this.#clock = clock;
  }

  async get(id: string, keyId: string): Promise<StoredResponse | undefined> {
    const [row] = await this.#connection.query<StoredRow>(
      'SELECT input_items, response, previous_id FROM responses WHERE id = $1 AND key_id = $2 AND expires_at > $3',
      [id, keyId, this.#clock()],
    );
    return row === undefined ? undefined : storedResponse(id, row);
  }

  async put(keyId: string, stored: StoredResponse): Promise<void> {
    const now = this.#clock();
    const texts = storedTexts(stored);
    await this.#connection.query(
      `INSERT INTO responses (id, key_id, created_at, expires_at, input_items, response, previous_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET key_id = excluded.key_id, created_at = excluded.created_at,
         expires_at = excluded.expires_at, input_items = excluded.input_items, response = excluded.response,
         previous_id = excluded.previous_id`,
      [
        stored.id,
        keyId,
        now,
        now + this.#retentionMs,
        texts.inputItems,
        texts.response,
        stored.previousId ?? null,
      ],
    );
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    const rows = await this.#connection.query(
      'DELETE FROM responses WHERE id = $1 AND key_id = $2 AND expires_at > $3 RETURNING id',
      [id, keyId, this.#clock()],
    );
    return rows.length > 0;
  }

  async purge(): Promise<number> {
    const [row] = await this.#connection.query<{ purged: number }>(
      `WITH gone AS (DELETE FROM responses WHERE expires_at <= $1 RETURNING 1)
       SELECT count(*) AS purged FROM gone`,
      [this.#clock()],
    );
    return row?.purged ?? 0;
  }
}
