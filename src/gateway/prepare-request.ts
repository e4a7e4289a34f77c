/**
 * Everything decided before any upstream is called: decode in the surface's shape, resolve the
 * model, check it against the catalog, and settle how the request travels (pass-through or not).
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { ResponseContext, SurfaceInput, WireCodec } from '../codecs/codec.ts';
import { familyCodec } from '../surfaces/registry.ts';
import { GatewayError, isJsonObject, type ChatRequest } from '../ir/index.ts';
import type { ChatCall } from './chat-call.ts';
import type { ImageFetcher } from './fetch-images.ts';
import type { ModelResolver } from './resolve-model.ts';
import { checkContextWindow, fitOutputCap, fitsByBytes, validateAgainstCatalog } from './validate-request.ts';

export interface PreparedRequest {
  request: ChatRequest;
  entry: ModelEntry;
  /** The codec of the model's family (the upstream side). */
  target: WireCodec;
  /** Same family on both sides: the client's body goes upstream as is, model rewritten. */
  passThrough: boolean;
  context: ResponseContext;
  /** What the gateway changed in the request (a lowered output cap), for the `warning` header. */
  notes: string[] | undefined;
}

export interface PrepareOptions {
  /** Config `limits.strictOutputTokens`: an output cap above the model's maximum is a 400, not lowered. */
  strictOutputTokens?: boolean | undefined;
}

/**
 * Decoded, resolved and validated; a promise only when the prompt has to be counted against the
 * context window (most fit by their bytes alone), so the common request makes none here.
 */
export function prepareRequest(
  call: ChatCall,
  models: ModelResolver,
  options: PrepareOptions = {},
): PreparedRequest | Promise<PreparedRequest> {
  // The model decides the family, and with it whether the client's body can pass through as is.
  const named = peekModel(call);
  const peeked = named === undefined ? undefined : models.resolve(named);
  const lenient = peeked !== undefined && peeked.family === call.surface.id;
  const input: SurfaceInput = { body: call.body, route: call.route, lenient };
  if (call.turn?.builtInTools !== undefined) input.builtInTools = call.turn.builtInTools;
  const request = call.surface.decodeRequest(input);
  const entry = request.model === named ? peeked : models.resolve(request.model);
  if (entry === undefined) {
    throw models.unknownModel(request.model);
  }
  // Nothing serves it (a real upstream is configured, not this model's, and the simulator is off).
  const unserved = models.unserved(entry);
  if (unserved !== undefined) throw new GatewayError('not_configured', unserved);
  const lowered = fitOutputCap(request, entry, options.strictOutputTokens === true);
  validateAgainstCatalog(request, entry);
  if (fitsByBytes(request, entry)) return prepared(call, request, entry, lowered);
  return checkContextWindow(request, entry).then(() => prepared(call, request, entry, lowered));
}

function prepared(
  call: ChatCall,
  request: ChatRequest,
  entry: ModelEntry,
  lowered: string | undefined,
): PreparedRequest {
  const target = familyCodec(entry.family);
  if (target.capabilities.requiresMaxOutputTokens && request.sampling.maxOutputTokens === undefined) {
    request.sampling.maxOutputTokens = entry.maxOutputTokens;
  }
  const passThrough = call.surface.id === target.id && isJsonObject(call.body);
  const context: ResponseContext = {
    model: request.model,
    includeUsage: request.includeUsage,
    legacyFunctions: request.legacyFunctions === true,
  };
  if (call.turn !== undefined) context.turn = call.turn;
  // The surface's notes on what it accepted but cannot send first, then what the gateway changed.
  const notes = lowered === undefined ? request.notes : [...(request.notes ?? []), lowered];
  return { request, entry, target, passThrough, context, notes };
}

/**
 * Images given by URL to a family that needs the bytes (C), fetched and inlined when the operator
 * enabled fetching (the SSRF rules of fetch-images.ts); otherwise such a URL stays a 400. Only for
 * an admitted request: nothing is fetched for a key that would be refused.
 */
export function inlineImageUrls(
  prepared: PreparedRequest,
  images: ImageFetcher | undefined,
): Promise<void> | undefined {
  if (images?.enabled === true && !prepared.passThrough && !prepared.target.capabilities.imageUrls)
    return images.inlineImages(prepared.request);
  // Nothing to fetch (the common case): no promise.
  return undefined;
}

/** The model the client named: in the path (C) or the body's `model` (A, B). */
function peekModel(call: ChatCall): string | undefined {
  if (call.route.model !== undefined) return call.route.model;
  return isJsonObject(call.body) && typeof call.body.model === 'string' ? call.body.model : undefined;
}
