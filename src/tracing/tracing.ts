/**
 * Request tracing: one SERVER span per chat request, one CLIENT span per upstream call, exported
 * over OTLP/HTTP. The OpenTelemetry SDK is imported only when tracing is on
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT` set), so the default costs nothing: without
 * a tracer the gateway makes no span and no extra call on a request's path.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config/observability-config.ts';
import type { RequestContext } from '../gateway/admission.ts';
import type { AttemptRecord } from '../gateway/chat-call.ts';
import type { Delivery } from '../gateway/deliver.ts';

/** How a chat request ended, for its spans. */
export interface RequestEnd {
  /** The HTTP status the client got. */
  status: number;
  /** Why it failed (in full, or after its answer started); undefined when it completed. */
  errorKind: string | undefined;
  /** What was delivered; undefined when nothing was. */
  delivery: Delivery | undefined;
  /** The authenticated client key's id; undefined before authentication. */
  keyId: string | undefined;
  /** The client's request body: put on the span only when the operator opted in to content. */
  body: unknown;
}

export interface RequestTracer {
  /** Starts the request's SERVER span, continuing the client's `traceparent`; sets `context.traceId`. */
  begin(context: RequestContext, headers: IncomingHttpHeaders): void;
  /** An upstream call is about to be sent: its CLIENT span starts and its `traceparent` goes on `headers`. */
  attemptSending(context: RequestContext, record: AttemptRecord, headers: Record<string, string>): void;
  /** The request was answered: its spans get their attributes and end. */
  end(context: RequestContext, end: RequestEnd): void;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** Where spans go instead of OTLP (tests: an in-memory exporter, spans exported as they end). */
  exporter?: SpanExporter;
}

/** The tracer when tracing is on (config or an injected exporter), else undefined. */
export async function startTracing(
  config: TracingConfig,
  options: TracingOptions = {},
): Promise<RequestTracer | undefined> {
  if (!config.enabled && options.exporter === undefined) return undefined;
  const { createOtelTracer } = await import('./otel-tracer.ts');
  return createOtelTracer(config, options.exporter);
}
