/**
 * What the dashboard reads and writes, on either store. Both stores hold the same tables and
 * columns for it (the ledger with a row id, the per-minute and per-hour rollups, the sessions), so
 * its queries are written once, with `?` placeholders, and each store runs them; the one thing
 * stored differently is a latency histogram (a `bin:count …` text per bucket in the embedded file,
 * a row per bin in PostgreSQL), read through `histograms`. The embedded store's is
 * sqlite/sqlite-dashboard-store.ts, PostgreSQL's postgres/pg-dashboard-store.ts. Reads only bound values: no identifier
 * ever comes from input.
 */
export type SqlValue = string | number;

/** bin → count */
export type BinCounts = Map<number, number>;

export interface HistogramQuery {
  period: number;
  /** The models ('' for every model together). */
  models: readonly string[];
  /** First and last bucket, both included. */
  from: number;
  to: number;
  /** Buckets are summed per point of this many milliseconds from `from`. */
  step: number;
  metric?: 'latency' | 'ttft';
}

export interface HistogramPoint {
  model: string;
  /** The point's index: (bucket − from) ÷ step. */
  point: number;
  metric: string;
  counts: BinCounts;
}

export interface DashboardStore {
  /** The rows of one statement over the shared tables (`?` placeholders, values bound). */
  all<Row extends object>(sql: string, values?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs one change. */
  run(sql: string, values?: readonly SqlValue[]): Promise<void>;
  /** The latency histograms of some models (or all together, '') per model, point and metric. */
  histograms(query: HistogramQuery): Promise<HistogramPoint[]>;
}
