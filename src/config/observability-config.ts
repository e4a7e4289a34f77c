/**
 * `metrics` and tracing settings: the file's `metrics:` block, `MODELGATE_METRICS_TOKEN`, and the
 * standard OpenTelemetry environment variables that turn trace export on.
 */
import { z } from 'zod';
import { strictSection } from './did-you-mean.ts';

export interface MetricsConfig {
  /** `GET /metrics` and the per-request metrics (on by default; the route needs a credential). */
  enabled: boolean;
  /** Serve `/metrics` to anyone: only when the operator says so. */
  open: boolean;
  /** MODELGATE_METRICS_TOKEN: a bearer token for scrapers besides the admin key. Never logged. */
  token: string | undefined;
  /** A key-id label on the token and cost counters (one series per key: off by default). */
  perKeyLabels: boolean;
  /** Series per metric; beyond it one overflow series takes the observations. */
  maxSeriesPerMetric: number;
}

export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and the SDK not disabled). */
  enabled: boolean;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: spans carry the messages (off by default). */
  captureContent: boolean;
}

export const metricsFileSchema = strictSection({
  enabled: z.boolean().optional(),
  open: z.boolean().optional(),
  perKeyLabels: z.boolean().optional(),
  maxSeriesPerMetric: z.number().int().min(10).max(100_000).optional(),
}).optional();

type Environment = Readonly<Record<string, string | undefined>>;

export function metricsConfig(
  file: z.infer<typeof metricsFileSchema>,
  environment: Environment,
  fail: (message: string) => never,
): MetricsConfig {
  const token = environment.MODELGATE_METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 16)
    fail('MODELGATE_METRICS_TOKEN must be at least 16 characters');
  return {
    enabled: file?.enabled ?? true,
    open: file?.open ?? false,
    token,
    perKeyLabels: file?.perKeyLabels ?? false,
    maxSeriesPerMetric: file?.maxSeriesPerMetric ?? 2_000,
  };
}

export function tracingConfig(environment: Environment): TracingConfig {
  const endpoint =
    environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const disabled =
    environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' ||
    environment.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none';
  return {
    enabled: endpoint !== undefined && endpoint !== '' && !disabled,
    captureContent:
      environment.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
  };
}
