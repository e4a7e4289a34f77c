/** The dashboard's store (store/dashboard-store.ts) on the embedded file. */
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import type { DashboardStore, HistogramPoint, HistogramQuery, SqlValue } from '../dashboard-store.ts';
import { parseCounts } from '../rollup-backfill.ts';
import type { Database } from './database.ts';

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
