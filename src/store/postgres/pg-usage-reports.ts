/** Usage reports from the PostgreSQL ledger: the embedded store's figures, grouped on the server. */
import {
  emptyReport,
  reportFromRows,
  type UsageGrouping,
  type UsageQuery,
  type UsageReport,
  type UsageReports,
  type UsageRow,
} from '../../usage/report.ts';
import type { PgConnection } from './connection.ts';

/** Fixed SQL per grouping: no identifier ever comes from input. */
const groupExpressions: Readonly<Record<UsageGrouping, string>> = {
  model: 'model',
  key: 'key_id',
  day: "to_char(to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
};

export class PgUsageReports implements UsageReports {
  readonly #connection: PgConnection;

  constructor(connection: PgConnection) {
    this.#connection = connection;
  }

  async report(query: UsageQuery, names: ReadonlyMap<string, string> = new Map()): Promise<UsageReport> {
    const conditions = ['created_at >= $1'];
    const values: unknown[] = [query.since];
    if (query.until !== undefined) {
      values.push(query.until);
      conditions.push(`created_at < $${values.length}`);
    }
    if (query.keyIds !== undefined) {
      if (query.keyIds.length === 0) return emptyReport(query);
      values.push([...query.keyIds]);
      conditions.push(`key_id = ANY($${values.length}::text[])`);
    }
    const rows = await this.#connection.query<UsageRow>(
      `SELECT ${groupExpressions[query.by]} AS grp,
         count(*) FILTER (WHERE final) AS requests,
         count(*) FILTER (WHERE final AND outcome <> 'ok') AS errors,
         coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
         coalesce(sum(cached_tokens), 0) AS cached_tokens,
         coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
         coalesce(sum(output_tokens), 0) AS output_tokens,
         coalesce(sum(cost_usd), 0) AS cost_usd
       FROM usage_ledger WHERE ${conditions.join(' AND ')}
       GROUP BY 1 ORDER BY ${groupExpressions[query.by]} COLLATE "C"`,
      values,
    );
    return reportFromRows(query, rows, names);
  }
}
