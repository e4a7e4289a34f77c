/**
 * Stored Responses API answers (`previous_response_id`, `GET`/`DELETE /v1/responses/{id}`): the
 * answer and the input it answered, owned by the client key that created it, kept for the
 * configured retention. A continuation is stored by reference: its own new input items and a
 * pointer to the response it continued, never the whole conversation again (which grew
 * quadratically along a chain); readers walk the chain, bounded (`server/responses-chain.ts`).
 * A key sees only its own: any other key's id reads as not found. Two stores keep them: the
 * embedded one (`sqlite/sqlite-response-store.ts`) and PostgreSQL (`postgres/pg-response-store.ts`).
 */
import type { JsonObject, JsonValue } from '../ir/index.ts';

export interface StoredResponse {
  id: string;
  /**
   * The input this answer followed: its own new items when `previousId` is set (the earlier turns
   * are that response's); rows stored before responses were chained hold the whole conversation.
   */
  inputItems: JsonValue[];
  /** The `response` object as the client received it. */
  response: JsonObject;
  /** The response this one continued (`previous_response_id`); absent when it began a conversation. */
  previousId?: string;
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
  previous_id: string | null;
}

/** The characters a read response took in the store (its two JSON texts), by the object `get` gave. */
const storedSizes = new WeakMap<StoredResponse, number>();

/** The stored size of a response `get` returned (its JSON texts' length); 0 for any other object. */
export function storedSizeOf(stored: StoredResponse): number {
  return storedSizes.get(stored) ?? 0;
}

/** A stored row (JSON text in both stores) as the caller gets it. */
export function storedResponse(id: string, row: StoredRow): StoredResponse {
  const stored: StoredResponse = {
    id,
    inputItems: JSON.parse(row.input_items) as JsonValue[],
    response: JSON.parse(row.response) as JsonObject,
  };
  if (row.previous_id !== null) stored.previousId = row.previous_id;
  storedSizes.set(stored, row.input_items.length + row.response.length);
  return stored;
}

/** A response as the store writes it: its JSON texts, whose length the per-response cap bounds. */
export function storedTexts(stored: StoredResponse): { inputItems: string; response: string } {
  return { inputItems: JSON.stringify(stored.inputItems), response: JSON.stringify(stored.response) };
}
