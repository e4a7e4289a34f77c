/**
 * The Prometheus text format (0.0.4) pieces: label sets, numbers, and whole metrics rendered from
 * plain data — a registry's `snapshot()` (the merged metrics of `--workers N`) and prom-client's
 * `getMetricsAsJSON()` (each worker's process metrics, under a `worker` label).
 */
import type { MetricSnapshot } from './metric-snapshot.ts';

export function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  const parts: string[] = [];
  for (let index = 0; index < names.length; index++)
    parts.push(`${names[index] as string}="${escapeLabel(values[index] ?? '')}"`);
  return `{${parts.join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (character) => (character === '\n' ? '\\n' : `\\${character}`));
}

export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Snapshots as text, the same text their registry renders (`exposition.test.ts` holds them equal). */
export function renderSnapshots(metrics: readonly MetricSnapshot[], out: string[]): void {
  for (const metric of metrics) {
    out.push(`# HELP ${metric.name} ${metric.help}\n# TYPE ${metric.name} ${metric.type}\n`);
    const bounds = metric.bounds ?? [];
    for (const series of metric.series) {
      const labels = labelText(Object.keys(series.labels), Object.values(series.labels));
      if (metric.type !== 'histogram') {
        out.push(`${metric.name}${labels} ${formatNumber(series.value)}\n`);
        continue;
      }
      const prefix = labels === '' ? '{' : `${labels.slice(0, -1)},`;
      let cumulative = 0;
      for (let index = 0; index < bounds.length; index++) {
        cumulative += series.buckets?.[index] ?? 0;
        out.push(
          `${metric.name}_bucket${prefix}le="${formatNumber(bounds[index] as number)}"} ${cumulative}\n`,
        );
      }
      out.push(`${metric.name}_bucket${prefix}le="+Inf"} ${series.count ?? 0}\n`);
      out.push(`${metric.name}_sum${labels} ${formatNumber(series.value)}\n`);
      out.push(`${metric.name}_count${labels} ${series.count ?? 0}\n`);
    }
  }
}

/** One metric of prom-client's `getMetricsAsJSON()`, as it crosses the IPC channel. */
export interface ProcessMetric {
  name: string;
  help: string;
  type: string;
  values: { value: number; labels: Record<string, string | number | undefined>; metricName?: string }[];
}

/**
 * Several processes' prom-client metrics in one exposition: each metric's HELP and TYPE once, each
 * sample with a `worker` label naming its process (a process's CPU, memory and event-loop lag are
 * its own; summing them would hide the one worker in trouble).
 */
export function renderProcessMetrics(
  processes: readonly { worker: string; metrics: readonly ProcessMetric[] }[],
  out: string[],
): void {
  const byName = new Map<string, { help: string; type: string; lines: string[] }>();
  for (const { worker, metrics } of processes)
    for (const metric of metrics) {
      let entry = byName.get(metric.name);
      if (entry === undefined) {
        entry = { help: metric.help, type: metric.type, lines: [] };
        byName.set(metric.name, entry);
      }
      for (const sample of metric.values) {
        const names: string[] = [];
        const values: string[] = [];
        for (const [name, value] of Object.entries(sample.labels))
          if (value !== undefined) {
            names.push(name);
            values.push(String(value));
          }
        names.push('worker');
        values.push(worker);
        entry.lines.push(
          `${sample.metricName ?? metric.name}${labelText(names, values)} ${formatNumber(sample.value)}\n`,
        );
      }
    }
  for (const [name, { help, type, lines }] of byName) {
    out.push(`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`);
    for (const line of lines) out.push(line);
  }
}
