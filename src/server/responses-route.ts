/**
 * The stored side of the Responses API: `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and
 * `GET /v1/responses/{id}/input_items`, in Family A's shapes, with A's bearer key. A key reaches
 * only the responses it created: any other id answers 404, whether or not another key has it.
 * Each is a request like a chat request: it holds one of the key's in-flight slots and counts as
 * one request against the key's requests per minute (the Responses API's family; no tokens), and a
 * key whose budget is spent is refused (`limits/request-meter.ts`) — all before the store is read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { responsesSurface } from '../surfaces/responses/index.ts';
import { GatewayError, isJsonObject, type JsonObject, type JsonValue } from '../ir/index.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { ResponseStore } from '../store/response-store.ts';
import { pathOf, type Answer } from './answers.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { AdmissionRefusal } from '../gateway/admission.ts';
import type { KeySlots } from './key-slots.ts';
import type { RequestAdmission } from './request-admission.ts';
import { maxChainDepth, readConversation } from './responses-chain.ts';
import { responseNotFound } from './responses-turn.ts';

export interface StoredResponsesDependencies {
  keys: ClientKeys;
  store: ResponseStore | undefined;
  clock: () => number;
  slots: KeySlots;
  admission: RequestAdmission;
  /** Characters of stored JSON one chain read may take (the body cap). */
  maxChainChars: number;
}

/** Which stored-response route: the response itself, or its input items. */
export interface StoredResponsePath {
  /** The response id, as written in the path. */
  id: string;
  inputItems: boolean;
}

export async function storedResponsesRoute(
  request: IncomingMessage,
  response: ServerResponse,
  { id, inputItems }: StoredResponsePath,
  search: URLSearchParams,
  dependencies: StoredResponsesDependencies,
  answer: Answer,
  baseHeaders: ResponseHeaders,
): Promise<void> {
  const fail = (error: GatewayError, headers: ResponseHeaders = {}): void => {
    const wire = responsesSurface.encodeError(error);
    answer(wire.status, wire.body, { ...baseHeaders, ...wire.headers, ...headers });
  };
  const allow = inputItems ? 'GET' : 'GET, DELETE';
  if (request.method !== 'GET' && !(request.method === 'DELETE' && !inputItems)) {
    fail(
      new GatewayError(
        'method_not_allowed',
        `${request.method ?? ''} is not allowed on ${pathOf(request.url)}: use ${allow}`,
      ),
      { allow },
    );
    return;
  }
  const key = dependencies.keys.authenticate(
    responsesSurface.readClientKey(request.headers, search),
    dependencies.clock(),
  );
  if (key === undefined) {
    fail(new GatewayError('authentication', 'Invalid or missing API key'));
    return;
  }
  const store = dependencies.store;
  const limits: ResponseHeaders = {};
  let stored;
  try {
    dependencies.slots.take(key.id, response);
    await dependencies.admission.meter(
      { clientId: key.id, surface: responsesSurface, family: responsesSurface.family },
      limits,
    );
    if (request.method === 'DELETE') {
      if ((await store?.delete(id, key.id)) === true)
        answer(200, { id, object: 'response', deleted: true }, { ...baseHeaders, ...limits });
      else fail(responseNotFound(id), limits);
      return;
    }
    const bounds = { maxDepth: maxChainDepth, maxChars: dependencies.maxChainChars };
    stored = await readConversation(store, id, key.id, bounds, null);
  } catch (error) {
    if (error instanceof AdmissionRefusal) fail(error, { ...limits, ...error.headers });
    else if (error instanceof GatewayError) fail(error, limits);
    else if (error instanceof StoreUnavailableError) fail(storeUnavailable(error), limits);
    else throw error;
    return;
  }
  if (stored === undefined) {
    fail(responseNotFound(id), limits);
    return;
  }
  if (!inputItems) answer(200, stored.latest.response, { ...baseHeaders, ...limits });
  else {
    try {
      const items = [...stored.before, ...stored.latest.inputItems];
      answer(200, inputItemsPage(id, items, search), { ...baseHeaders, ...limits });
    } catch (error) {
      if (error instanceof GatewayError) fail(error, limits);
      else throw error;
    }
  }
}

function storeUnavailable(cause: StoreUnavailableError): GatewayError {
  return new GatewayError('unavailable', 'Stored responses are unavailable right now; retry shortly.', {
    retryAfterSeconds: 1,
    cause,
  });
}

/** The `input_items` list page (`order` desc by default, `limit` 1–100, `after` an item id). */
function inputItemsPage(id: string, items: readonly JsonValue[], search: URLSearchParams): JsonObject {
  const order = search.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw new GatewayError('invalid_request', 'order: expected "asc" or "desc"', { param: 'order' });
  }
  const limitText = search.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new GatewayError('invalid_request', 'limit: expected an integer from 1 to 100', { param: 'limit' });
  }
  // Items the client sent without an id get a stable one, as the API gives every stored item.
  const withIds = items.map((item, index): JsonValue =>
    isJsonObject(item) && typeof item.id !== 'string'
      ? { id: `${id.replace(/^resp_/, 'item_')}_${index}`, ...item }
      : item,
  );
  const ordered = order === 'asc' ? withIds : [...withIds].reverse();
  const after = search.get('after');
  const start = after === null ? 0 : ordered.findIndex((item) => isJsonObject(item) && item.id === after) + 1;
  const data = ordered.slice(start, start + limit);
  const idOf = (item: JsonValue | undefined): JsonValue =>
    isJsonObject(item) && typeof item.id === 'string' ? item.id : null;
  return {
    object: 'list',
    data,
    first_id: idOf(data[0]),
    last_id: idOf(data[data.length - 1]),
    has_more: start + limit < ordered.length,
  };
}
