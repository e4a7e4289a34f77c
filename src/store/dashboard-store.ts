/**
 * What the dashboard reads and writes, on either store. Both stores hold the same tables and
 * columns for it (the ledger with a row id, the per-minute and per-hour rollups, the sessions), so
 * its queries are written once, with `?` placeholders, and each store runs them; the one thing
 * stored differently is a latency histogram (a `bin:count …` text per bucket in the embedded file,
 * a row per bin in PostgreSQL), read through `histograms`. Reads only bound values: no identifier
 * ever comes from input.
 */
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { parseCounts } from './rollup-backfill.ts';
import type { Database } from './database.ts';

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

/** The embedded store's: statements prepared once each (the dashboard's are a bounded set). */
export class SqliteDashboardStore implements DashboardStore {
  readonly #database: Database;
  readonly #statements = new Map<string, StatementSync>();

  constructor(database: Database) {
    this.#database = database;
  }

  async all<Row extends object>(sql: string, values: readonly SqlValue[] = []): Promise<Row[]> {
    return Promise.resolve(this.#statement(sql).all(...(values as SQLInputValue[])) as Row[]);
  }

  async run(sql: string, values: readonly SqlValue[] = []): Promise<void> {
    this.#statement(sql).run(...(values as SQLInputValue[]));
    return Promise.resolve();
  }

  async histograms(query: HistogramQuery): Promise<HistogramPoint[]> {
    const points = new Map<string, HistogramPoint>();
    // One index range per model (the models are few; all of them at once would scan every bucket).
    for (const model of query.models) {
      const rows = await this.all<{ bucket: number; metric: string; counts: string }>(
        `SELECT bucket, metric, counts FROM latency_rollup
         WHERE period = ? AND model = ? AND bucket BETWEEN ? AND ?${query.metric === undefined ? '' : ' AND metric = ?'}`,
        [query.period, model, query.from, query.to, ...(query.metric === undefined ? [] : [query.metric])],
      );
      for (const row of rows) {
        const point = Math.floor((row.bucket - query.from) / query.step);
        const id = `${model}\u0000${point}\u0000${row.metric}`;
        const parsed = parseCounts(row.counts);
        const entry = points.get(id);
        if (entry === undefined) points.set(id, { model, point, metric: row.metric, counts: parsed });
        else for (const [bin, count] of parsed) entry.counts.set(bin, (entry.counts.get(bin) ?? 0) + count);
      }
    }
    return [...points.values()];
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
