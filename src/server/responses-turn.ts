/**
 * One Responses API request's turn: the id and time its answer carries, the client's body the
 * answer echoes, and what modelgate keeps. A `previous_response_id` is looked up (the one store
 * read before the call) and the conversation it ended is put before the new input; the answer is
 * stored after it was sent, unless the client said `store: false`.
 */
import type { BuiltInToolPolicy } from '../config/config.ts';
import type { SurfaceTurn } from '../codecs/codec.ts';
import { generateId } from '../gateway/ids.ts';
import { GatewayError, invalidRequest, isJsonObject, type JsonObject, type JsonValue } from '../ir/index.ts';
import type { Logger } from '../log/logger.ts';
import type { ResponseStore, StoredResponse } from '../store/response-store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';

export interface ResponsesTurn {
  turn: SurfaceTurn;
  /** The body the surface decodes: the client's, its input preceded by the earlier conversation. */
  body: JsonObject;
  /** After the answer: keep it (when it finished and the client did not say `store: false`); never throws. */
  finish(): Promise<void>;
}

/** A message in the API's stored form: typed, its text as a content part. */
function storedItem(item: JsonValue): JsonValue {
  if (!isJsonObject(item) || typeof item.role !== 'string') return item;
  if (item.type !== undefined && item.type !== 'message') return item;
  if (typeof item.content !== 'string') return { ...item, type: 'message' };
  const part = { type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content };
  return { ...item, type: 'message', content: [part] };
}

/** The input as the API records it: a string is one user message, messages are typed. */
function inputItems(input: JsonValue | undefined): JsonValue[] {
  if (typeof input === 'string') return [storedItem({ role: 'user', content: input })];
  return Array.isArray(input) ? input.map(storedItem) : [];
}

export async function beginResponsesTurn(
  body: unknown,
  keyId: string,
  store: ResponseStore | undefined,
  now: number,
  logger: Logger,
  builtInTools: BuiltInToolPolicy = 'reject',
): Promise<ResponsesTurn | undefined> {
  // Not an object: the surface's decoder answers with the 400.
  if (!isJsonObject(body)) return undefined;
  let history: JsonValue[] = [];
  const previousId = body.previous_response_id;
  if (previousId !== undefined && previousId !== null) {
    if (typeof previousId !== 'string')
      throw invalidRequest('previous_response_id: expected a string', 'previous_response_id');
    const previous = await readStored(store, previousId, keyId);
    if (previous === undefined) {
      throw invalidRequest(`Previous response with id '${previousId}' not found.`, 'previous_response_id');
    }
    const output = previous.response.output;
    history = [...previous.inputItems, ...(Array.isArray(output) ? output : [])];
  }
  const conversation = history.length === 0 ? undefined : [...history, ...inputItems(body.input)];
  let answer: JsonObject | undefined;
  const turn: SurfaceTurn = {
    id: generateId('resp_'),
    createdAt: Math.floor(now / 1000),
    body,
    onFinished: (finished) => {
      answer = finished;
    },
    builtInTools,
  };
  return {
    turn,
    body: conversation === undefined ? body : { ...body, input: conversation },
    finish: async () => {
      if (answer === undefined || store === undefined || body.store === false) return;
      try {
        await store.put(keyId, {
          id: turn.id,
          inputItems: conversation ?? inputItems(body.input),
          response: answer,
        });
      } catch (error) {
        // The client has its answer; only a later continuation will miss it.
        logger.warn('response not stored', { cause: error instanceof Error ? error.message : 'unknown' });
      }
    },
  };
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

/** `GatewayError` for a response id this key cannot see (never says whether another key has it). */
export function responseNotFound(id: string): GatewayError {
  return new GatewayError('not_found', `Response with id '${id}' not found.`, { code: null });
}
