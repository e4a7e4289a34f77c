/**
 * The per-request cost of the metrics: what one answered chat request adds (its ledger row
 * observed, `chatEnded`), measured in process against the same loop without the metrics, and the
 * same observations through prom-client for comparison (why the registry is our own). Run by
 * `npm run bench`, or alone: `node bench/metrics-path.ts`.
 */
import { fileURLToPath } from 'node:url';
import prometheus from 'prom-client';
import type { AttemptRecord } from '../src/gateway/delivery.ts';
import { GatewayMetrics, type EndedRequest } from '../src/metrics/gateway-metrics.ts';
import type { LedgerRow } from '../src/usage/ledger.ts';
import { RequestTimeline } from '../src/usage/request-timeline.ts';

export interface MetricsPathResult {
  /** Microseconds per request, median over runs. */
  withMetricsUs: number;
  withoutMetricsUs: number;
  /** withMetricsUs − withoutMetricsUs: the metrics' own cost. */
  metricsUs: number;
  /** The same observations through prom-client (labels objects), for comparison. */
  promClientUs: number;
  /** A request retried once: two attempts observed. */
  retriedUs: number;
  targetUs: number;
}

const models = ['A-1', 'A-2', 'B-1', 'B-2', 'C-1', 'C-2'];
const surfaces = ['alpha', 'beta', 'gamma'];
const iterations = 100_000;
const runs = 7;

function record(model: string, error?: AttemptRecord['error']): AttemptRecord {
  return {
    model,
    family: 'beta',
    upstreamModel: model,
    deployment: model,
    status: error === undefined ? 200 : 503,
    startedAt: Date.now(),
    headersMs: 3,
    firstByteMs: 4,
    latencyMs: 4,
    billed: error === undefined,
    answered: error === undefined,
    error,
  };
}

function row(model: string, surface: string): LedgerRow {
  return {
    requestId: 'req_bench',
    attempt: 1,
    final: true,
    createdAt: Date.now(),
    keyId: 'key-bench',
    surface,
    model,
    family: 'beta',
    upstreamModel: model,
    deployment: model,
    stream: true,
    status: 200,
    upstreamStatus: 200,
    outcome: 'ok',
    error: undefined,
    promptTokens: 120,
    cachedTokens: 64,
    cacheWriteTokens: 0,
    outputTokens: 40,
    reasoningTokens: 0,
    costUsd: 0.00042,
    usageEstimated: false,
    latencyMs: 180,
    ttftMs: 25,
    overheadMs: 0.3,
    traceId: undefined,
  };
}

function request(model: string, surface: string, attempts: AttemptRecord[]): EndedRequest {
  const timeline = new RequestTimeline(performance.now() - 200, Date.now() - 200);
  for (const attempt of attempts)
    timeline.attempts.push({
      record: attempt,
      sentAt: timeline.receivedAt + 1,
      endedAt: timeline.receivedAt + 5,
    });
  timeline.overheadMs = 0.3;
  timeline.firstByteAt = timeline.receivedAt + 25;
  timeline.endedAt = timeline.receivedAt + 180;
  return { surface, model, timeline };
}

/** Median microseconds per call of `work(index)` over `runs` runs of `iterations`. */
function time(work: (index: number) => void): number {
  const results: number[] = [];
  for (let warm = 0; warm < iterations; warm++) work(warm);
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < iterations; index++) work(index);
    results.push(Number(process.hrtime.bigint() - started) / 1000 / iterations);
  }
  results.sort((left, right) => left - right);
  return results[Math.floor(runs / 2)] as number;
}

export function measureMetricsPath(): MetricsPathResult {
  const metrics = new GatewayMetrics({ models, perKeyLabels: false, maxSeries: 2_000 });
  // Inputs built once: the loop measures what the gateway adds per request, not test setup.
  const inputs = models.flatMap((model) =>
    surfaces.map((surface) => ({
      row: row(model, surface),
      ended: request(model, surface, [record(model)]),
      retried: request(model, surface, [record(model, 'overloaded'), record(model)]),
    })),
  );
  let sink = 0;
  const without = time((index) => {
    const input = inputs[index % inputs.length];
    if (input !== undefined) sink += input.row.outputTokens;
  });
  const withMetrics = time((index) => {
    const input = inputs[index % inputs.length];
    if (input === undefined) return;
    sink += input.row.outputTokens;
    metrics.ledgerRow(input.row);
    metrics.chatEnded(input.ended, 200, undefined);
  });
  const retried = time((index) => {
    const input = inputs[index % inputs.length];
    if (input === undefined) return;
    sink += input.row.outputTokens;
    metrics.ledgerRow(input.row);
    metrics.chatEnded(input.retried, 200, undefined);
  });
  const prom = promClientEquivalent();
  const promClient = time((index) => {
    const input = inputs[index % inputs.length];
    if (input !== undefined) prom(input.row);
  });
  if (sink < 0) throw new Error('unreachable');
  return {
    withMetricsUs: withMetrics,
    withoutMetricsUs: without,
    metricsUs: Math.max(0, withMetrics - without),
    promClientUs: promClient,
    retriedUs: Math.max(0, retried - without),
    targetUs: 10,
  };
}

/** The same nine observations per request through prom-client's label objects. */
function promClientEquivalent(): (row: LedgerRow) => void {
  const registry = new prometheus.Registry();
  const counter = (name: string, labelNames: string[]): prometheus.Counter =>
    new prometheus.Counter({ name, help: name, labelNames, registers: [registry] });
  const histogram = (name: string, labelNames: string[], buckets: number[]): prometheus.Histogram =>
    new prometheus.Histogram({ name, help: name, labelNames, buckets, registers: [registry] });
  const requests = counter('requests_total', ['surface', 'model', 'status', 'error']);
  const duration = histogram('duration', ['surface', 'model', 'status'], [0.01, 0.1, 1, 10, 100]);
  const overhead = histogram('overhead', ['surface'], [0.0001, 0.001, 0.01, 0.1]);
  const attempts = histogram('attempts', ['provider', 'model', 'kind', 'error'], [0.01, 0.1, 1, 10, 100]);
  const tokens = counter('tokens_total', ['type', 'provider', 'model']);
  const cost = counter('cost_total', ['provider', 'model']);
  const ttft = histogram('ttft', ['surface', 'model'], [0.01, 0.1, 1, 10]);
  const tpot = histogram('tpot', ['model'], [0.01, 0.1, 1]);
  return (row) => {
    requests.inc({ surface: row.surface, model: row.model, status: '2xx', error: '' });
    duration.observe({ surface: row.surface, model: row.model, status: '2xx' }, 0.18);
    overhead.observe({ surface: row.surface }, 0.0003);
    attempts.observe({ provider: row.family, model: row.model, kind: 'primary', error: '' }, 0.17);
    tokens.inc({ type: 'input', provider: row.family, model: row.model }, row.promptTokens);
    tokens.inc({ type: 'output', provider: row.family, model: row.model }, row.outputTokens);
    tokens.inc({ type: 'cache_read', provider: row.family, model: row.model }, row.cachedTokens);
    cost.inc({ provider: row.family, model: row.model }, row.costUsd);
    ttft.observe({ surface: row.surface, model: row.model }, 0.025);
    tpot.observe({ model: row.model }, 0.004);
  };
}

export function formatMetricsPath(result: MetricsPathResult): string {
  const pass = result.metricsUs <= result.targetUs && result.retriedUs <= result.targetUs;
  return [
    'metrics per request (in process, median of runs):',
    `  without metrics ${result.withoutMetricsUs.toFixed(3)} µs, with ${result.withMetricsUs.toFixed(3)} µs:` +
      ` metrics cost ${result.metricsUs.toFixed(3)} µs (retried request ${result.retriedUs.toFixed(3)} µs)`,
    `  the same observations through prom-client: ${result.promClientUs.toFixed(3)} µs`,
    `  ${pass ? 'PASS' : 'FAIL'} metrics ≤ ${result.targetUs} µs per request`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(formatMetricsPath(measureMetricsPath()) + '\n');
}
