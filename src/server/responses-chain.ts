/**
 * A stored conversation read back: responses are stored by reference (each its own new input and
 * a pointer to the response it continued), so a continuation or an `input_items` listing walks the
 * chain from the newest response back. The walk is bounded — at most `maxDepth` responses and
 * `maxChars` characters of stored JSON in all (each response is itself capped when stored) — so
 * no chain can make a read unbounded; past a bound the client is told to send the history itself.
 * An earlier response that is gone (expired or deleted) ends the walk: the conversation starts
 * after it.
 */
import { GatewayError, invalidRequest, type JsonValue } from '../ir/index.ts';
import { storedSizeOf, type ResponseStore, type StoredResponse } from '../store/response-store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';

export interface ChainBounds {
  /** Responses read at most along one chain. */
  maxDepth: number;
  /** Characters of stored JSON read at most along one chain. */
  maxChars: number;
}

/** The responses a walk reads at most (each one store read). */
export const maxChainDepth = 256;

export interface StoredConversation {
  /** The response asked for. */
  latest: StoredResponse;
  /** Everything before its own input: earlier turns' input and output, oldest first. */
  before: JsonValue[];
}

/** The conversation ending at `id` (undefined when this key has no such response). */
export async function readConversation(
  store: ResponseStore | undefined,
  id: string,
  keyId: string,
  bounds: ChainBounds,
  param: string | null,
): Promise<StoredConversation | undefined> {
  const latest = await readStored(store, id, keyId);
  if (latest === undefined) return undefined;
  const earlier: StoredResponse[] = [];
  let chars = storedSizeOf(latest);
  for (let next = latest.previousId; next !== undefined;) {
    if (earlier.length + 1 >= bounds.maxDepth) throw tooLong(`more than ${bounds.maxDepth} responses`, param);
    const turn = await readStored(store, next, keyId);
    if (turn === undefined) break;
    chars += storedSizeOf(turn);
    if (chars > bounds.maxChars) throw tooLong(`more than ${bounds.maxChars} characters`, param);
    earlier.push(turn);
    next = turn.previousId;
  }
  const before: JsonValue[] = [];
  for (let index = earlier.length - 1; index >= 0; index--) {
    const turn = earlier[index] as StoredResponse;
    before.push(...turn.inputItems, ...outputOf(turn));
  }
  return { latest, before };
}

/** A response's output items (what a continuation replays after its input). */
export function outputOf(stored: StoredResponse): JsonValue[] {
  const output = stored.response.output;
  return Array.isArray(output) ? output : [];
}

function tooLong(what: string, param: string | null): GatewayError {
  return invalidRequest(
    `This stored conversation is too long to read back (${what}): send its history as input instead.`,
    param ?? undefined,
  );
}

/** A stored answer; a store that cannot be reached is a 503 (retry later), not "not found". */
export async function readStored(
  store: ResponseStore | undefined,
  id: string,
  keyId: string,
): Promise<StoredResponse | undefined> {
  try {
    return await store?.get(id, keyId);
  } catch (error) {
    if (error instanceof StoreUnavailableError)
      throw new GatewayError('unavailable', 'Stored responses are unavailable right now; retry shortly.', {
        retryAfterSeconds: 1,
        cause: error,
      });
    throw error;
  }
}
