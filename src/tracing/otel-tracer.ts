/**
 * The OpenTelemetry side of `tracing.ts`, imported only when tracing is on. Spans follow the GenAI
 * conventions: the SERVER span is the client's request (`chat {model}`), each CLIENT span one
 * upstream call (`chat {upstream model}`), a child of it, whose context goes upstream in
 * `traceparent`. Times come from the request's timeline, so a span ends where the ledger says the
 * call ended (a failed call when it failed, the answering call when the answer ended).
 * Exporter settings (endpoint, headers, timeout) and resource attributes (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`) are the standard OTEL_* variables, read by the SDK.
 */
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config/observability-config.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { AttemptRecord } from '../gateway/delivery.ts';
import { attemptSpanAttributes, contentAttributes, serverSpanAttributes } from './span-attributes.ts';
import type { RequestEnd, RequestTracer } from './tracer.ts';

interface RequestSpans {
  server: Span;
  /** The server span's context: the parent of the attempts. */
  parent: Context;
  attempts: { record: AttemptRecord; span: Span }[];
}

export function createOtelTracer(config: TracingConfig, exporter: SpanExporter | undefined): RequestTracer {
  // An injected exporter (tests) gets each span as it ends; OTLP gets batches off the request path.
  const processor =
    exporter === undefined
      ? new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })
      : new SimpleSpanProcessor({ exporter });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'modelgate' }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('modelgate');
  const propagator = new W3CTraceContextPropagator();
  const requests = new WeakMap<RequestContext, RequestSpans>();
  const epoch = (performanceTime: number): number => performance.timeOrigin + performanceTime;

  return {
    begin(context, headers) {
      const client = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const server = tracer.startSpan(
        'chat',
        {
          kind: SpanKind.SERVER,
          startTime: epoch(context.timeline.receivedAt),
          attributes: {
            'gen_ai.operation.name': 'chat',
            'modelgate.surface': context.surface,
            'modelgate.request_id': context.requestId,
          },
        },
        client,
      );
      requests.set(context, { server, parent: trace.setSpan(client, server), attempts: [] });
      context.traceId = server.spanContext().traceId;
    },

    attemptSending(context, record, headers) {
      const spans = requests.get(context);
      if (spans === undefined) return;
      const span = tracer.startSpan(
        `chat ${record.upstreamModel}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': record.family,
            'gen_ai.request.model': record.upstreamModel,
            'modelgate.model': record.model,
            'modelgate.deployment': record.deployment,
          },
        },
        spans.parent,
      );
      spans.attempts.push({ record, span });
      propagator.inject(trace.setSpan(spans.parent, span), headers, defaultTextMapSetter);
    },

    end(context, end: RequestEnd) {
      const spans = requests.get(context);
      if (spans === undefined) return;
      requests.delete(context);
      const { timeline } = context;
      const endedAt = timeline.endedAt ?? performance.now();
      // The call that carries the request's usage: the last one that answered (as in the ledger).
      let usageSpan: Span | undefined;
      for (const { record, span } of spans.attempts) if (record.answered) usageSpan = span;
      for (const { record, span } of spans.attempts) {
        const index = timeline.attempts.findIndex((timed) => timed.record === record);
        const timed = timeline.attempts[index];
        span.setAttributes(
          attemptSpanAttributes(record, context, index, span === usageSpan ? end.delivery : undefined),
        );
        if (record.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end(epoch(record.answered || timed === undefined ? endedAt : timed.endedAt));
      }
      const { server } = spans;
      server.updateName(`chat ${context.model ?? 'unknown'}`);
      server.setAttributes(serverSpanAttributes(context, end));
      if (config.captureContent) server.setAttributes(contentAttributes(end.body));
      if (end.errorKind !== undefined) server.setStatus({ code: SpanStatusCode.ERROR });
      server.end(epoch(endedAt));
    },

    shutdown: () => provider.shutdown(),
  };
}
