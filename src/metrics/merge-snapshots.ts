/**
 * The metrics of several worker processes as one: every series with the same labels summed.
 * Every gateway metric is a sum by meaning — counters and histograms count what happened in any
 * worker; requests in flight and ledger rows waiting add up; and `modelgate_breaker_state` (each
 * worker keeps its own breakers) becomes the number of workers whose breaker for that deployment is
 * in that state, so `{state="open"} > 0` alerts as it does with one process.
 *
 * The series cap still holds after the merge: workers that each stay under `maxSeries` may together
 * hold more label sets. The first `maxSeries` label sets a metric shows are admitted for good (as a
 * registry admits them), so a series never moves into or out of the overflow series between scrapes
 * and the sums only grow; any other label set is added to the metric's `overflow` series.
 */
import type { MetricSnapshot, SeriesSnapshot } from './metric-snapshot.ts';
import { overflowValue } from './registry.ts';

export interface MergedMetrics {
  metrics: MetricSnapshot[];
  /** Per metric: the workers' series this merge added to its overflow series (over the cap). */
  folded: Map<string, number>;
}

export class SnapshotMerge {
  readonly #maxSeries: number;
  /** Per metric, the label sets admitted as their own series, in admission order. */
  readonly #admitted = new Map<string, Set<string>>();

  constructor(maxSeries: number) {
    this.#maxSeries = maxSeries;
  }

  merge(snapshots: readonly (readonly MetricSnapshot[])[]): MergedMetrics {
    const merged = new Map<string, { metric: MetricSnapshot; byKey: Map<string, SeriesSnapshot> }>();
    const folded = new Map<string, number>();
    for (const snapshot of snapshots)
      for (const metric of snapshot) {
        let target = merged.get(metric.name);
        if (target === undefined) {
          const { series: _series, ...shape } = metric;
          target = { metric: { ...shape, series: [] }, byKey: new Map() };
          merged.set(metric.name, target);
        }
        for (const series of metric.series) {
          let key = isOverflow(series.labels) ? overflowKey : this.#admit(metric.name, series.labels);
          if (key === undefined) {
            folded.set(metric.name, (folded.get(metric.name) ?? 0) + 1);
            key = overflowKey;
          }
          const existing = target.byKey.get(key);
          if (existing === undefined)
            target.byKey.set(key, {
              ...series,
              labels: key === overflowKey ? overflowLabels(series.labels) : series.labels,
              ...(series.buckets === undefined ? {} : { buckets: [...series.buckets] }),
            });
          else add(existing, series);
        }
      }
    const metrics: MetricSnapshot[] = [];
    for (const { metric, byKey } of merged.values()) {
      const admitted = this.#admitted.get(metric.name);
      // Admission order (a registry's own order), the overflow series last.
      for (const key of admitted ?? []) {
        const series = byKey.get(key);
        if (series !== undefined) metric.series.push(series);
      }
      const overflow = byKey.get(overflowKey);
      if (overflow !== undefined) metric.series.push(overflow);
      metrics.push(metric);
    }
    return { metrics, folded };
  }

  /** The key of the series these labels go to; undefined past the cap (the overflow series). */
  #admit(metric: string, labels: Readonly<Record<string, string>>): string | undefined {
    const values = Object.values(labels);
    const key = values.join('\u001f');
    let admitted = this.#admitted.get(metric);
    if (admitted === undefined) {
      admitted = new Set();
      this.#admitted.set(metric, admitted);
    }
    if (admitted.has(key)) return key;
    if (admitted.size >= this.#maxSeries) return undefined;
    admitted.add(key);
    return key;
  }
}

/** Never a label key: label values are joined with U+001F, and this holds U+0000. */
const overflowKey = '\u0000overflow';

/** A worker's own overflow series: every label reads `overflow`. */
function isOverflow(labels: Readonly<Record<string, string>>): boolean {
  const values = Object.values(labels);
  return values.length > 0 && values.every((value) => value === overflowValue);
}

function overflowLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(labels).map((name) => [name, overflowValue]));
}

function add(into: SeriesSnapshot, from: SeriesSnapshot): void {
  into.value += from.value;
  if (from.count !== undefined) into.count = (into.count ?? 0) + from.count;
  if (from.buckets !== undefined && into.buckets !== undefined)
    for (let index = 0; index < from.buckets.length; index++)
      into.buckets[index] = (into.buckets[index] ?? 0) + (from.buckets[index] ?? 0);
}
