/** Metrics as plain data: what a registry's `snapshot()` gives, what workers send their primary. */

export interface SeriesSnapshot {
  labels: Record<string, string>;
  /** Counter or gauge value; for a histogram, the sum of the observations. */
  value: number;
  /** Histograms only: observations in all, and per bucket (not cumulative; the last is +Inf). */
  count?: number;
  buckets?: number[];
}

export interface MetricSnapshot {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  help: string;
  /** Histograms only: the upper bounds of the buckets (+Inf implied). */
  bounds?: readonly number[];
  series: SeriesSnapshot[];
}
