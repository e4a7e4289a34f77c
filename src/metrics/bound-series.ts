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
 * bounds the memory whatever they are): past it a tuple's series are made for the one call. Nested
 * maps, one level per label, so a lookup hashes the label strings themselves (their hash is kept
 * in each string) rather than a key joined anew for every request.
 */
export class BoundSeriesCache<T> {
  readonly #root = new Map<string, unknown>();
  readonly #limit: number;
  #size = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * The tuple's entry: `a` … as many labels as the tuple has, the same number on every call.
   * `make` is given the labels, so a caller can pass one function made once, not a closure a call.
   */
  get(
    make: (a: string, b?: string, c?: string, d?: string) => T,
    a: string,
    b?: string,
    c?: string,
    d?: string,
  ): T {
    let level = this.#root;
    let label = a;
    if (b !== undefined) {
      level = this.#next(level, label);
      label = b;
      if (c !== undefined) {
        level = this.#next(level, label);
        label = c;
        if (d !== undefined) {
          level = this.#next(level, label);
          label = d;
        }
      }
    }
    const found = level.get(label);
    if (found !== undefined) return found as T;
    const made = make(a, b, c, d);
    if (this.#size < this.#limit) {
      level.set(label, made);
      this.#size++;
    }
    return made;
  }

  #next(level: Map<string, unknown>, label: string): Map<string, unknown> {
    let next = level.get(label) as Map<string, unknown> | undefined;
    if (next === undefined) level.set(label, (next = new Map()));
    return next;
  }
}
