/**
 * The dashboard's store on PostgreSQL: the dashboard's statements (written once, `?` placeholders)
 * numbered for the server, and latency histograms summed per point and bin on the server (a row
 * per bin: a month of hours is a few thousand rows, not a text per bucket to merge here).
 */
import type { DashboardStore, HistogramPoint, HistogramQuery, SqlValue } from '../dashboard-store.ts';
import type { PgConnection } from './connection.ts';

export class PgDashboardStore implements DashboardStore {
  readonly #connection: PgConnection;
  readonly #numbered = new Map<string, string>();

  constructor(connection: PgConnection) {
    this.#connection = connection;
  }

  async all<Row extends object>(sql: string, values: readonly SqlValue[] = []): Promise<Row[]> {
    return this.#connection.query<Row>(this.#number(sql), values);
  }

  async run(sql: string, values: readonly SqlValue[] = []): Promise<void> {
    await this.#connection.query(this.#number(sql), values);
  }

  async histograms(query: HistogramQuery): Promise<HistogramPoint[]> {
    const values: unknown[] = [query.from, query.step, query.period, query.models, query.to];
    if (query.metric !== undefined) values.push(query.metric);
    // Every model in one statement (an index range each), summed per point and bin on the server.
    const rows = await this.#connection.query<{
      model: string;
      point: number;
      metric: string;
      bin: number;
      count: number;
    }>(
      `SELECT model, (bucket - $1) / $2 AS point, metric, bin, sum(count) AS count FROM latency_rollup
       WHERE period = $3 AND model = ANY($4::text[]) AND bucket BETWEEN $1 AND $5${query.metric === undefined ? '' : ' AND metric = $6'}
       GROUP BY 1, 2, 3, 4`,
      values,
    );
    const points = new Map<string, HistogramPoint>();
    for (const row of rows) {
      const id = `${row.model}\u0000${row.point}\u0000${row.metric}`;
      let entry = points.get(id);
      if (entry === undefined) {
        entry = { model: row.model, point: row.point, metric: row.metric, counts: new Map() };
        points.set(id, entry);
      }
      entry.counts.set(row.bin, row.count);
    }
    return [...points.values()];
  }

  /** `?` → `$1`, `$2`, … (the dashboard's statements hold no `?` inside a string). */
  #number(sql: string): string {
    let numbered = this.#numbered.get(sql);
    if (numbered === undefined) {
      let index = 0;
      numbered = sql.replace(/\?/g, () => `$${++index}`);
      this.#numbered.set(sql, numbered);
    }
    return numbered;
  }
}
