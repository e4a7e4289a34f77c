/**
 * `metrics` and tracing settings: the file's `metrics:` block, `MODELGATE_METRICS_TOKEN`, and the
 * standard OpenTelemetry environment variables that turn trace export on (environment.ts maps them).
 */
import { z } from 'zod';
import { strictSection } from './did-you-mean.ts';

/** `metrics:` with its defaults. */
export const metricsFileSchema = strictSection({
  /** `GET /metrics` and the per-request metrics (on by default; the route needs a credential). */
  enabled: z.boolean().default(true),
  /** Serve `/metrics` to anyone: only when the operator says so. */
  open: z.boolean().default(false),
  /** A key-id label on the token and cost counters (one series per key: off by default). */
  perKeyLabels: z.boolean().default(false),
  /** Series per metric; beyond it one overflow series takes the observations. */
  maxSeriesPerMetric: z.number().int().min(10).max(100_000).default(2_000),
}).prefault({});

export type MetricsConfig = z.output<typeof metricsFileSchema> & {
  /** MODELGATE_METRICS_TOKEN: a bearer token for scrapers besides the admin key. Never logged. */
  token: string | undefined;
};

/** The OpenTelemetry variables as environment.ts maps them (blank is unset). */
export const tracingEnvironmentSchema = z
  .object({
    endpoint: z.string().optional(),
    tracesEndpoint: z.string().optional(),
    sdkDisabled: z.boolean().default(false),
    noExporter: z.boolean().default(false),
    captureContent: z.boolean().default(false),
  })
  .prefault({})
  .transform(({ endpoint, tracesEndpoint, sdkDisabled, noExporter, captureContent }) => ({
    /** OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and the SDK not disabled). */
    enabled: (tracesEndpoint ?? endpoint) !== undefined && !sdkDisabled && !noExporter,
    /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: spans carry the messages (off by default). */
    captureContent,
  }));

export type TracingConfig = z.output<typeof tracingEnvironmentSchema>;
