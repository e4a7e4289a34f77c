/**
 * Request tracing: one SERVER span per chat request, one CLIENT span per upstream call, exported
 * over OTLP/HTTP. The OpenTelemetry SDK is imported only when tracing is on
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT` set), so the default costs nothing: without
 * a tracer the gateway makes no span and no extra call on a request's path.
 */
import type { TracingConfig } from '../config/observability-config.ts';
import type { RequestTracer, TracingOptions } from './tracer.ts';

export type { RequestEnd, RequestTracer, TracingOptions } from './tracer.ts';

/** The tracer when tracing is on (config or an injected exporter), else undefined. */
export async function startTracing(
  config: TracingConfig,
  options: TracingOptions = {},
): Promise<RequestTracer | undefined> {
  if (!config.enabled && options.exporter === undefined) return undefined;
  const { createOtelTracer } = await import('./otel-tracer.ts');
  return createOtelTracer(config, options.exporter);
}
