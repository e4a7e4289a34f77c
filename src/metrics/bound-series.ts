/**
 * Series bound once: a label set's series looked up on its first observation and kept, so the
 * next observations of an answered request touch the series itself (no label array, no joined
 * key, no map lookup per metric). Bound lazily: a series appears when it is first observed, as
 * with `add`/`observe`. Past a metric's series cap nothing is kept and every observation takes the
 * metric's own path (the overflow series, counted).
 */
import type { Counter, CounterState, Histogram, HistogramState } from './registry.ts';

export class BoundCounter {
  readonly #metric: Counter;
  readonly #values: readonly string[];
  #state: CounterState | undefined;

  constructor(metric: Counter, values: readonly string[]) {
    this.#metric = metric;
    this.#values = values;
  }

  add(amount = 1): void {
    if (!(amount > 0)) return;
    const state = (this.#state ??= this.#metric.seriesOf(this.#values));
    if (state === undefined) this.#metric.add(this.#values, amount);
    else state.value += amount;
  }
}

export class BoundHistogram {
  readonly #metric: Histogram;
  readonly #values: readonly string[];
  #state: HistogramState | undefined;

  constructor(metric: Histogram, values: readonly string[]) {
    this.#metric = metric;
    this.#values = values;
  }

  observe(value: number): void {
    if (!Number.isFinite(value) || value < 0) return;
    const state = (this.#state ??= this.#metric.seriesOf(this.#values));
    if (state === undefined) this.#metric.observe(this.#values, value);
    else this.#metric.record(state, value);
  }
}

/**
 * Bound series per label tuple, at most `limit` tuples (the labels are bounded already; the limit
 * bounds the memory whatever they are): past it a tuple's series are made for the one call.
 */
export class BoundSeriesCache<T> {
  readonly #entries = new Map<string, T>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string, make: () => T): T {
    const found = this.#entries.get(key);
    if (found !== undefined) return found;
    const made = make();
    if (this.#entries.size < this.#limit) this.#entries.set(key, made);
    return made;
  }
}
