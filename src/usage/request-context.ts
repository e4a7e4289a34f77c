/** What the HTTP layer knows about a chat request that the gateway core does not carry: the ledger's view of it. */
import type { RequestTimeline } from './request-timeline.ts';

export interface RequestContext {
  requestId: string;
  /** How the client called: `unified` or the surface family. */
  surface: string;
  timeline: RequestTimeline;
  /** The catalog model the request named, once resolved (for metrics). */
  model?: string;
  /** The request's W3C trace id: the client's `traceparent`, or the gateway's span when tracing. */
  traceId?: string;
}
