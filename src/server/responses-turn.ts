/**
 * One Responses API request's turn: the id and time its answer carries, the client's body the
 * answer echoes, and what modelgate keeps. A `previous_response_id` is looked up (the chain's
 * store reads, bounded, before the call: `responses-chain.ts`) and the conversation it ended is put
 * before the new input; the answer is stored after it was sent, unless the client said
 * `store: false`. What is stored is this turn's own input (without `reasoning` items, which no
 * upstream receives) and the answer, with a pointer to the previous response — at most
 * `maxStoredBytes` characters: a larger input answers as `store: false` (the answer says so), a
 * larger answer is not kept.
 */
import type { BuiltInToolPolicy } from '../config/config.ts';
import type { SurfaceTurn } from '../codecs/codec.ts';
import { generateId } from '../gateway/ids.ts';
import { GatewayError, invalidRequest, isJsonObject, type JsonObject, type JsonValue } from '../ir/index.ts';
import type { Logger } from '../log/logger.ts';
import { storedTexts, type ResponseStore, type StoredResponse } from '../store/response-store.ts';
import { maxChainDepth, outputOf, readConversation } from './responses-chain.ts';

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

/** What is kept of the input: `reasoning` items are skipped by the decoder, so never replayed. */
function keptItems(input: JsonValue | undefined): JsonValue[] {
  return inputItems(input).filter((item) => !(isJsonObject(item) && item.type === 'reasoning'));
}

export interface TurnOptions {
  builtInTools: BuiltInToolPolicy;
  /** One stored response's JSON characters at most (its own input and answer). */
  maxStoredBytes: number;
  /** A chain read back is at most this many characters (the body cap: what a client may send). */
  maxChainChars: number;
}

export async function beginResponsesTurn(
  body: unknown,
  keyId: string,
  store: ResponseStore | undefined,
  now: number,
  logger: Logger,
  options: TurnOptions,
): Promise<ResponsesTurn | undefined> {
  // Not an object: the surface's decoder answers with the 400.
  if (!isJsonObject(body)) return undefined;
  let history: JsonValue[] = [];
  let previousId: string | undefined;
  const previousField = body.previous_response_id;
  if (previousField !== undefined && previousField !== null) {
    if (typeof previousField !== 'string')
      throw invalidRequest('previous_response_id: expected a string', 'previous_response_id');
    previousId = previousField;
    const bounds = { maxDepth: maxChainDepth, maxChars: options.maxChainChars };
    const previous = await readConversation(store, previousId, keyId, bounds, 'previous_response_id');
    if (previous === undefined) {
      throw invalidRequest(`Previous response with id '${previousId}' not found.`, 'previous_response_id');
    }
    history = [...previous.before, ...previous.latest.inputItems, ...outputOf(previous.latest)];
  }
  const conversation = history.length === 0 ? undefined : [...history, ...inputItems(body.input)];
  const ownItems = keptItems(body.input);
  // Too large to keep: answered as the API answers `store: false` (and never read back).
  const storing = body.store !== false && JSON.stringify(ownItems).length <= options.maxStoredBytes;
  let answer: JsonObject | undefined;
  const turn: SurfaceTurn = {
    id: generateId('resp_'),
    createdAt: Math.floor(now / 1000),
    body: storing || body.store === false ? body : { ...body, store: false },
    onFinished: (finished) => {
      answer = finished;
    },
    builtInTools: options.builtInTools,
  };
  return {
    turn,
    body: conversation === undefined ? body : { ...body, input: conversation },
    finish: async () => {
      if (answer === undefined || store === undefined || !storing) return;
      const stored: StoredResponse = { id: turn.id, inputItems: ownItems, response: answer };
      if (previousId !== undefined) stored.previousId = previousId;
      const texts = storedTexts(stored);
      if (texts.inputItems.length + texts.response.length > options.maxStoredBytes) {
        logger.warn('response not stored: larger than responses.maxStoredBytes', {
          maxStoredBytes: options.maxStoredBytes,
        });
        return;
      }
      try {
        await store.put(keyId, stored);
      } catch (error) {
        // The client has its answer; only a later continuation will miss it.
        logger.warn('response not stored', { cause: error instanceof Error ? error.message : 'unknown' });
      }
    },
  };
}

/** `GatewayError` for a response id this key cannot see (never says whether another key has it). */
export function responseNotFound(id: string): GatewayError {
  return new GatewayError('not_found', `Response with id '${id}' not found.`, { code: null });
}
