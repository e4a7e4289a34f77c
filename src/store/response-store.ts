/**
 * Stored Responses API answers (`previous_response_id`, `GET`/`DELETE /v1/responses/{id}`): the
 * answer and the whole input it answered, owned by the client key that created it, kept for the
 * configured retention. A key sees only its own: any other key's id reads as not found. Two stores
 * keep them: the embedded one (`sqlite/sqlite-response-store.ts`) and PostgreSQL
 * (`postgres/pg-response-store.ts`).
 */
import type { JsonObject, JsonValue } from '../ir/index.ts';

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

/** A stored row (JSON text in both stores) as the caller gets it. */
export function storedResponse(id: string, row: StoredRow): StoredResponse {
  return {
    id,
    inputItems: JSON.parse(row.input_items) as JsonValue[],
    response: JSON.parse(row.response) as JsonObject,
  };
}
