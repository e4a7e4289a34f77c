/**
 * A small metrics registry: counters, histograms and collected gauges with fixed label names,
 * rendered in the Prometheus text format and readable as plain values (`snapshot`, for the
 * dashboard). Written here instead of using prom-client for the per-request path because every
 * metric needs a series cap with an overflow series and a count of what was dropped, which
 * prom-client does not have, and because a series is found by one string key built from the label
 * values (prom-client sorts and hashes a label object on every call: `bench/metrics-path.ts`
 * measures both). prom-client still provides the process metrics (`process-metrics.ts`).
 */

import { formatNumber, labelText } from './exposition.ts';
import type { MetricSnapshot, SeriesSnapshot } from './metric-snapshot.ts';

/** Label values of the series that takes observations once a metric has `maxSeries` series. */
export const overflowValue = 'overflow';

export type { MetricSnapshot, SeriesSnapshot } from './metric-snapshot.ts';

interface Metric {
  render(out: string[]): void;
  snapshot(): MetricSnapshot;
}

/** Counts observations sent to an overflow series, per metric (the self-metric). */
type DropCounter = (metric: string) => void;

abstract class SeriesMetric<S> implements Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #series = new Map<string, { labels: string; values: readonly string[]; state: S }>();
  readonly #maxSeries: number;
  readonly #dropped: DropCounter;
  #overflow: S | undefined;

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    maxSeries: number,
    dropped: DropCounter,
  ) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.#maxSeries = maxSeries;
    this.#dropped = dropped;
  }

  abstract readonly type: MetricSnapshot['type'];
  protected abstract create(): S;
  protected abstract renderSeries(out: string[], labels: string, state: S): void;
  protected abstract read(state: S): Omit<SeriesSnapshot, 'labels'>;

  /** The series of these label values (in `labelNames` order), or the overflow series past the cap. */
  protected series(values: readonly string[]): S {
    const state = this.seriesOf(values);
    if (state !== undefined) return state;
    this.#dropped(this.name);
    return (this.#overflow ??= this.create());
  }

  /**
   * The series of these label values, made if the cap allows; undefined past the cap. A series is
   * never removed, so a caller may keep it and observe it again without looking it up
   * (`bound-series.ts`).
   */
  seriesOf(values: readonly string[]): S | undefined {
    const key = values.length === 1 ? (values[0] as string) : values.join('\u001f');
    const found = this.#series.get(key);
    if (found !== undefined) return found.state;
    if (this.#series.size >= this.#maxSeries) return undefined;
    const state = this.create();
    this.#series.set(key, { labels: labelText(this.labelNames, values), values: [...values], state });
    return state;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}\n# TYPE ${this.name} ${this.type}\n`);
    for (const { labels, state } of this.#series.values()) this.renderSeries(out, labels, state);
    if (this.#overflow !== undefined)
      this.renderSeries(
        out,
        labelText(
          this.labelNames,
          this.labelNames.map(() => overflowValue),
        ),
        this.#overflow,
      );
  }

  snapshot(): MetricSnapshot {
    const series: SeriesSnapshot[] = [];
    const named = (values: readonly string[]): Record<string, string> =>
      Object.fromEntries(this.labelNames.map((name, index) => [name, values[index] ?? '']));
    for (const { values, state } of this.#series.values())
      series.push({ labels: named(values), ...this.read(state) });
    if (this.#overflow !== undefined)
      series.push({ labels: named(this.labelNames.map(() => overflowValue)), ...this.read(this.#overflow) });
    return { name: this.name, type: this.type, help: this.help, series };
  }
}

export interface CounterState {
  value: number;
}

export class Counter extends SeriesMetric<CounterState> {
  readonly type = 'counter';

  /** Adds `amount` (≥ 0) to the series of `values`. */
  add(values: readonly string[], amount = 1): void {
    if (amount > 0) this.series(values).value += amount;
  }

  protected create(): CounterState {
    return { value: 0 };
  }

  protected renderSeries(out: string[], labels: string, state: CounterState): void {
    out.push(`${this.name}${labels} ${formatNumber(state.value)}\n`);
  }

  protected read(state: CounterState): Omit<SeriesSnapshot, 'labels'> {
    return { value: state.value };
  }
}

export interface HistogramState {
  /** Per bucket, not cumulative; the last one is +Inf. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class Histogram extends SeriesMetric<HistogramState> {
  readonly type = 'histogram';
  readonly bounds: readonly number[];
  readonly #boundText: readonly string[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    bounds: readonly number[],
    maxSeries: number,
    dropped: DropCounter,
  ) {
    super(name, help, labelNames, maxSeries, dropped);
    this.bounds = bounds;
    this.#boundText = bounds.map(formatNumber);
  }

  observe(values: readonly string[], value: number): void {
    if (!Number.isFinite(value) || value < 0) return;
    this.record(this.series(values), value);
  }

  /** Adds a valid observation to a series of this histogram. */
  record(state: HistogramState, value: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    state.counts[index] = (state.counts[index] ?? 0) + 1;
    state.sum += value;
    state.count++;
  }

  protected create(): HistogramState {
    return { counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }

  protected renderSeries(out: string[], labels: string, state: HistogramState): void {
    const prefix = labels === '' ? '{' : `${labels.slice(0, -1)},`;
    let cumulative = 0;
    for (let index = 0; index < this.bounds.length; index++) {
      cumulative += state.counts[index] as number;
      out.push(`${this.name}_bucket${prefix}le="${this.#boundText[index] as string}"} ${cumulative}\n`);
    }
    out.push(`${this.name}_bucket${prefix}le="+Inf"} ${state.count}\n`);
    out.push(`${this.name}_sum${labels} ${formatNumber(state.sum)}\n`);
    out.push(`${this.name}_count${labels} ${state.count}\n`);
  }

  protected read(state: HistogramState): Omit<SeriesSnapshot, 'labels'> {
    return { value: state.sum, count: state.count, buckets: [...state.counts] };
  }

  override snapshot(): MetricSnapshot {
    return { ...super.snapshot(), bounds: this.bounds };
  }
}

/** A value read when scraped (in flight, queue depth, breaker state): nothing on the request path. */
export class CollectedGauge implements Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #collect: () => Iterable<readonly [readonly string[], number]>;
  readonly #type: 'gauge' | 'counter';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: () => Iterable<readonly [readonly string[], number]>,
    type: 'gauge' | 'counter' = 'gauge',
  ) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.#collect = collect;
    this.#type = type;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}\n# TYPE ${this.name} ${this.#type}\n`);
    for (const [values, value] of this.#collect())
      out.push(`${this.name}${labelText(this.labelNames, values)} ${formatNumber(value)}\n`);
  }

  snapshot(): MetricSnapshot {
    const series: SeriesSnapshot[] = [];
    for (const [values, value] of this.#collect())
      series.push({
        labels: Object.fromEntries(this.labelNames.map((name, index) => [name, values[index] ?? ''])),
        value,
      });
    return { name: this.name, type: this.#type, help: this.help, series };
  }
}

export interface RegistryOptions {
  /** Series per metric; beyond it observations go to one overflow series (and are counted). */
  maxSeries: number;
}

export class MetricsRegistry {
  readonly #metrics: Metric[] = [];
  readonly #maxSeries: number;
  readonly #dropped: Counter;

  constructor(options: RegistryOptions) {
    this.#maxSeries = options.maxSeries;
    // Its own label is a metric name: bounded by the metrics defined here.
    this.#dropped = new Counter(
      'modelgate_metrics_series_dropped_total',
      'Observations sent to a metric’s overflow series because it reached its series cap.',
      ['metric'],
      Number.MAX_SAFE_INTEGER,
      () => undefined,
    );
  }

  counter(name: string, help: string, labelNames: readonly string[]): Counter {
    return this.#add(new Counter(name, help, labelNames, this.#maxSeries, this.#drop));
  }

  histogram(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, labelNames, bounds, this.#maxSeries, this.#drop));
  }

  gauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: () => Iterable<readonly [readonly string[], number]>,
    type: 'gauge' | 'counter' = 'gauge',
  ): CollectedGauge {
    return this.#add(new CollectedGauge(name, help, labelNames, collect, type));
  }

  /** The Prometheus text format (version 0.0.4). */
  render(): string {
    const out: string[] = [];
    for (const metric of this.#metrics) metric.render(out);
    this.#dropped.render(out);
    return out.join('');
  }

  snapshot(): MetricSnapshot[] {
    return [...this.#metrics.map((metric) => metric.snapshot()), this.#dropped.snapshot()];
  }

  readonly #drop = (metric: string): void => {
    this.#dropped.add([metric]);
  };

  #add<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }
}
