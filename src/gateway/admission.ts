/**
 * Admission: the per-client policy seam between a prepared request and its delivery (model
 * permissions, rate limits, budgets, the usage ledger). `admit` may throw a `GatewayError`
 * (403/404/429) and adds headers to `call.sink.headers`; `settle` is always called once with what
 * was delivered (undefined when delivery failed before any answer).
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { SurfaceCodec } from '../families/codec.ts';
import type { FamilyId, GatewayError } from '../ir/index.ts';
import { generateId } from './ids.ts';
import type { ChatCall } from './chat-call.ts';
import type { Delivery } from './deliver.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';
import { RequestTimeline } from '../usage/request-timeline.ts';

/** What the HTTP layer knows about a request that the core does not carry. */
export interface RequestContext {
  requestId: string;
  /** How the client called: `unified` or the surface family. */
  surface: string;
  timeline: RequestTimeline;
  /** Set once the rate-limit headers are on the answer. */
  limitsReported: boolean;
  /** The catalog model the request named, once resolved (for metrics). */
  model?: string;
  /** The request's W3C trace id: the client's `traceparent`, or the gateway's span when tracing. */
  traceId?: string;
}

export function newRequestContext(surface: SurfaceCodec): RequestContext {
  return {
    requestId: generateId('req_'),
    surface: surface.id,
    timeline: new RequestTimeline(),
    limitsReported: false,
  };
}

export interface Admission {
  settle(delivery: Delivery | undefined, error: unknown): void;
}

/** Who asks, in which surface's shape, about which family's limits. */
export interface LimitsQuery {
  clientId: string;
  surface: SurfaceCodec;
  family: FamilyId;
  headers: ResponseHeaders;
  context: RequestContext;
}

/** What is known of a chat request before its body is read. */
export interface ScreenQuery {
  clientId: string;
  surface: SurfaceCodec;
  /** The model the path names (the C surface), resolved; undefined when the body names it. */
  entry: ModelEntry | undefined;
  /** The path selects streaming (C); false when the body decides. */
  stream: boolean;
  headers: ResponseHeaders;
  context: RequestContext;
}

export interface AdmissionControl {
  /**
   * From the headers alone, before the body is read: the error `admit` would give whatever the
   * body holds (a spent budget, no request left in any family the key may call, a model the path
   * names that the key may not use), with its headers set; undefined when the body must decide.
   */
  screen?(query: ScreenQuery): Promise<GatewayError | undefined>;
  admit(call: ChatCall, prepared: PreparedRequest, context: RequestContext): Promise<Admission>;
  /** Puts the rate-limit headers on an answer that never reached `admit` (a bad request…). */
  describe(query: LimitsQuery): Promise<void>;
}

/** No policy: every authenticated client may call every model without limits. */
export const openAdmission: AdmissionControl = {
  admit: () => Promise.resolve({ settle: () => undefined }),
  describe: () => Promise.resolve(),
};
