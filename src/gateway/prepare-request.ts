/**
 * Everything decided before any upstream is called: decode in the surface's shape, resolve the
 * model, check it against the catalog, and settle how the request travels (pass-through or not).
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { FamilyCodec, ResponseContext } from '../families/codec.ts';
import { codecs } from '../families/registry.ts';
import { GatewayError, isJsonObject, type ChatRequest } from '../ir/index.ts';
import type { ChatCall } from './chat-call.ts';
import type { ModelResolver } from './resolve-model.ts';
import { validateAgainstCatalog } from './validate-request.ts';

export interface PreparedRequest {
  request: ChatRequest;
  entry: ModelEntry;
  /** The codec of the model's family (the upstream side). */
  target: FamilyCodec;
  /** Same family on both sides: the client's body goes upstream as is, model rewritten. */
  passThrough: boolean;
  context: ResponseContext;
}

// Async: later steps here (fetching images when an operator allows it) wait on I/O.
// eslint-disable-next-line @typescript-eslint/require-await
export async function prepareRequest(call: ChatCall, models: ModelResolver): Promise<PreparedRequest> {
  // The model decides the family, and with it whether the client's body can pass through as is.
  const named = peekModel(call);
  const peeked = named === undefined ? undefined : models.resolve(named);
  const lenient = peeked !== undefined && peeked.family === call.surface.id;
  const request = call.surface.decodeRequest({ body: call.body, route: call.route, lenient });
  const entry = request.model === named ? peeked : models.resolve(request.model);
  if (entry === undefined) {
    throw new GatewayError(
      'not_found',
      `The model \`${request.model}\` does not exist or is not served here`,
      {
        param: 'model',
      },
    );
  }
  validateAgainstCatalog(request, entry);
  const target = codecs[entry.family];
  if (target.capabilities.requiresMaxOutputTokens && request.sampling.maxOutputTokens === undefined) {
    request.sampling.maxOutputTokens = entry.maxOutputTokens;
  }
  return {
    request,
    entry,
    target,
    passThrough: call.surface.id === target.id && isJsonObject(call.body),
    context: {
      model: request.model,
      includeUsage: request.includeUsage,
      legacyFunctions: request.legacyFunctions === true,
    },
  };
}

/** The model the client named: in the path (C) or the body's `model` (A, B). */
function peekModel(call: ChatCall): string | undefined {
  if (call.route.model !== undefined) return call.route.model;
  return isJsonObject(call.body) && typeof call.body.model === 'string' ? call.body.model : undefined;
}
