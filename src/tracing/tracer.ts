/**
 * What the rest of modelgate sees of a request tracer (types only): the SDK-backed tracer
 * implements it and `tracing.ts`, which loads that tracer on demand, returns it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { AttemptRecord, Delivery } from '../gateway/delivery.ts';
import type { RequestContext } from '../usage/request-context.ts';

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
