/**
 * The one place a chat request's end is observed: the metrics' `chatEnded` (not for a token count,
 * which is no chat) and the trace's end, each exactly once, after the answer was given.
 */
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { RequestEnd, RequestTracer } from '../tracing/tracing.ts';
import type { RequestContext } from '../usage/request-context.ts';

export interface ChatEnding extends RequestEnd {
  /** A token count: traced, but no chat for the metrics. */
  countTokens: boolean;
}

export function observeEnd(
  context: RequestContext,
  ending: ChatEnding,
  metrics: GatewayMetrics | undefined,
  tracer: RequestTracer | undefined,
): void {
  if (!ending.countTokens) metrics?.chatEnded(context, ending.status, ending.errorKind);
  tracer?.end(context, ending);
}
