/**
 * One chat request, any surface to any family: prepare (decode, resolve, validate) → admit
 * (per-client policy) → fetch image URLs (when enabled: only for an admitted request) → deliver
 * (upstream call, answer in the surface's shape) → settle.
 * A request that was never admitted throws its `GatewayError` (admission's is a `Refusal`, with its
 * headers); an admitted one returns its result, `Undelivered` when no answer started: either way the
 * server encodes the error in the surface's shape.
 */
import { GatewayError } from '../ir/index.ts';
import type { Admit } from './admission.ts';
import type { ChatCall } from './chat-call.ts';
import { deliver } from './deliver.ts';
import type { DeliveryResult } from './delivery.ts';
import type { ImageFetcher } from './fetch-images.ts';
import { inlineImageUrls, prepareRequest } from './prepare-request.ts';
import type { ModelResolver } from './resolve-model.ts';
import type { UpstreamRouter } from './upstreams.ts';

export type { ChatCall } from './chat-call.ts';

/** `Context`: the HTTP layer's record of the request, handed to admission as is. */
export interface ChatDependencies<Context> {
  models: ModelResolver;
  upstreams: UpstreamRouter;
  admission: Admit<Context>;
  /** Operator-enabled fetching of image URLs for families that need the bytes (config `images`). */
  images?: ImageFetcher;
  /** Config `limits.strictOutputTokens`: refuse an output cap above the model's maximum instead of lowering it. */
  strictOutputTokens?: boolean;
}

export async function handleChat<Context>(
  call: ChatCall,
  dependencies: ChatDependencies<Context>,
  context: Context,
): Promise<DeliveryResult> {
  const preparing = prepareRequest(call, dependencies.models, {
    strictOutputTokens: dependencies.strictOutputTokens,
  });
  // A promise only when the prompt had to be counted: the common request waits for nothing here.
  const prepared = preparing instanceof Promise ? await preparing : preparing;
  const admission = await dependencies.admission.admit(call, prepared, context);
  Object.assign(call.sink.headers, admission.headers);
  let result: DeliveryResult = crashed;
  try {
    try {
      const inlining = inlineImageUrls(prepared, dependencies.images);
      if (inlining !== undefined) await inlining;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // An image that cannot be fetched: no upstream call, the client's 400.
      result = { delivered: false, error, records: [] };
      return result;
    }
    const route = dependencies.upstreams.route(prepared.entry);
    result = await deliver(call, prepared, route, admission.afterDispatch);
  } finally {
    // Once, whatever happened (a bug's throw settles as an internal error with no attempt known).
    admission.settle(result);
  }
  return result;
}

const crashed: DeliveryResult = {
  delivered: false,
  error: new GatewayError('internal', 'internal error'),
  records: [],
};
