/**
 * The series an answered request and its ledger rows observe, bound once per label tuple
 * (`bound-series.ts`): `GatewayMetrics` looks up one tuple per group instead of joining a key per
 * metric, and touches the series themselves.
 */
import { BoundCounter, BoundHistogram, BoundSeriesCache } from './bound-series.ts';
import type { Counter, Histogram } from './registry.ts';

/** A ledger row's series: one provider, model (and key, with per-key labels). */
export interface RowSeries {
  input: BoundCounter;
  output: BoundCounter;
  cacheRead: BoundCounter;
  cacheCreation: BoundCounter;
  reasoning: BoundCounter;
  cost: BoundCounter;
  timePerOutputToken: BoundHistogram;
}

/** An answered request's series: one surface, requested model, status class and error type. */
export interface EndedSeries {
  requests: BoundCounter;
  duration: BoundHistogram;
}

export interface SeriesMetrics {
  tokens: Counter;
  cost: Counter;
  timePerOutputToken: Histogram;
  timeToFirstToken: Histogram;
  requests: Counter;
  requestDuration: Histogram;
  overhead: Histogram;
  attemptDuration: Histogram;
  retries: Counter;
}

export class RequestSeries {
  readonly #metrics: SeriesMetrics;
  readonly #rows: BoundSeriesCache<RowSeries>;
  readonly #firstToken: BoundSeriesCache<BoundHistogram>;
  readonly #ended: BoundSeriesCache<EndedSeries>;
  readonly #overhead: BoundSeriesCache<BoundHistogram>;
  readonly #attempts: BoundSeriesCache<BoundHistogram>;
  readonly #retries: BoundSeriesCache<BoundCounter>;

  /** `limit`: label tuples kept per group (the metrics' own series cap). */
  constructor(metrics: SeriesMetrics, limit: number) {
    this.#metrics = metrics;
    this.#rows = new BoundSeriesCache(limit);
    this.#firstToken = new BoundSeriesCache(limit);
    this.#ended = new BoundSeriesCache(limit);
    this.#overhead = new BoundSeriesCache(limit);
    this.#attempts = new BoundSeriesCache(limit);
    this.#retries = new BoundSeriesCache(limit);
  }

  row(provider: string, model: string, key: string | undefined): RowSeries {
    return this.#rows.get(this.#makeRow, provider, model, key);
  }

  firstToken(surface: string, model: string): BoundHistogram {
    return this.#firstToken.get(this.#makeFirstToken, surface, model);
  }

  ended(surface: string, model: string, status: string, error: string): EndedSeries {
    return this.#ended.get(this.#makeEnded, surface, model, status, error);
  }

  overhead(surface: string): BoundHistogram {
    return this.#overhead.get(this.#makeOverhead, surface);
  }

  attempt(provider: string, model: string, kind: string, error: string): BoundHistogram {
    return this.#attempts.get(this.#makeAttempt, provider, model, kind, error);
  }

  retry(model: string): BoundCounter {
    return this.#retries.get(this.#makeRetry, model);
  }

  // Each group's maker, made once: a lookup allocates nothing (the labels come as arguments).
  readonly #makeRow = (provider: string, model = '', key?: string): RowSeries => {
    const { tokens, cost, timePerOutputToken } = this.#metrics;
    const owner = key === undefined ? [] : [key];
    const typed = (type: string): BoundCounter => new BoundCounter(tokens, [type, provider, model, ...owner]);
    return {
      input: typed('input'),
      output: typed('output'),
      cacheRead: typed('cache_read'),
      cacheCreation: typed('cache_creation'),
      reasoning: typed('reasoning'),
      cost: new BoundCounter(cost, [provider, model, ...owner]),
      timePerOutputToken: new BoundHistogram(timePerOutputToken, [model]),
    };
  };

  readonly #makeFirstToken = (surface: string, model = ''): BoundHistogram =>
    new BoundHistogram(this.#metrics.timeToFirstToken, [surface, model]);

  readonly #makeEnded = (surface: string, model = '', status = '', error = ''): EndedSeries => ({
    requests: new BoundCounter(this.#metrics.requests, [surface, model, status, error]),
    duration: new BoundHistogram(this.#metrics.requestDuration, [surface, model, status]),
  });

  readonly #makeOverhead = (surface: string): BoundHistogram =>
    new BoundHistogram(this.#metrics.overhead, [surface]);

  readonly #makeAttempt = (provider: string, model = '', kind = '', error = ''): BoundHistogram =>
    new BoundHistogram(this.#metrics.attemptDuration, [provider, model, kind, error]);

  readonly #makeRetry = (model: string): BoundCounter => new BoundCounter(this.#metrics.retries, [model]);
}
