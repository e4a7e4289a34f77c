/**
 * One chat request, any surface to any family: prepare (decode, resolve, validate) → admit
 * (per-client policy) → deliver (upstream call, answer in the surface's shape) → settle.
 * Errors before the answer starts are thrown as `GatewayError`; the server encodes them.
 */
import { newRequestContext, type AdmissionControl, type RequestContext } from './admission.ts';
import type { ChatCall } from './chat-call.ts';
import { deliver, type Delivery } from './deliver.ts';
import type { ImageFetcher } from './fetch-images.ts';
import { prepareRequest } from './prepare-request.ts';
import type { ModelResolver } from './resolve-model.ts';
import type { UpstreamRouter } from './upstreams.ts';

export type { ChatCall } from './chat-call.ts';

export interface ChatDependencies {
  models: ModelResolver;
  upstreams: UpstreamRouter;
  admission: AdmissionControl;
  /** Operator-enabled fetching of image URLs for families that need the bytes (config `images`). */
  images?: ImageFetcher;
  /** Config `limits.strictOutputTokens`: refuse an output cap above the model's maximum instead of lowering it. */
  strictOutputTokens?: boolean;
}

export async function handleChat(
  call: ChatCall,
  dependencies: ChatDependencies,
  context: RequestContext = newRequestContext(call.surface),
): Promise<Delivery> {
  const prepared = await prepareRequest(call, dependencies.models, {
    images: dependencies.images,
    strictOutputTokens: dependencies.strictOutputTokens,
  });
  context.model = prepared.entry.name;
  const admission = await dependencies.admission.admit(call, prepared, context);
  let delivery: Delivery | undefined;
  let failure: unknown = undefined;
  try {
    delivery = await deliver(call, prepared, dependencies.upstreams.route(prepared.entry));
    return delivery;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    admission.settle(delivery, failure);
  }
}
