/**
 * Usage figures from the ledger, grouped by model, key or UTC day: what `modelgate usage` prints
 * and `GET /admin/usage` returns. Requests are counted once each (their final row); tokens and
 * cost are summed over every row, so retried or fanned-out attempts all count.
 */
import type { Database } from '../store/database.ts';
import { formatUsd } from '../config/cost.ts';

export const usageGroupings = ['model', 'key', 'day'] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

export function isUsageGrouping(value: string): value is UsageGrouping {
  return (usageGroupings as readonly string[]).includes(value);
}

export interface UsageQuery {
  by: UsageGrouping;
  /** Unix milliseconds, inclusive. */
  since: number;
  /** Unix milliseconds, exclusive; undefined: now and later. */
  until?: number;
  /** Only these key ids; undefined: every key. */
  keyIds?: readonly string[];
}

export interface UsageLine {
  /** The model, the key's name or the day (YYYY-MM-DD, UTC). */
  group: string;
  requests: number;
  /** Requests that did not end well (refused, failed, aborted). */
  errors: number;
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface UsageReport {
  by: UsageGrouping;
  since: number;
  until: number | undefined;
  lines: UsageLine[];
  total: UsageLine;
}

/** Usage reports from a store's ledger (`names`: key id → key name, to show keys by name). */
export interface UsageReports {
  report(query: UsageQuery, names?: ReadonlyMap<string, string>): Promise<UsageReport>;
}

/** The embedded store's reports (the statement runs at once). */
export class SqliteUsageReports implements UsageReports {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async report(query: UsageQuery, names?: ReadonlyMap<string, string>): Promise<UsageReport> {
    return Promise.resolve(usageReport(this.#database, query, names));
  }
}

/** Fixed SQL per grouping: no identifier ever comes from input. */
const groupExpressions: Readonly<Record<UsageGrouping, string>> = {
  model: 'model',
  key: 'key_id',
  day: "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')",
};

/** What both stores report from: one row per group, sums over the query's ledger rows. */
export interface UsageRow {
  grp: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** `names`: key id → key name, to show keys by name. */
export function usageReport(
  database: Database,
  query: UsageQuery,
  names: ReadonlyMap<string, string> = new Map(),
): UsageReport {
  const conditions = ['created_at >= ?'];
  const values: (number | string)[] = [query.since];
  if (query.until !== undefined) {
    conditions.push('created_at < ?');
    values.push(query.until);
  }
  if (query.keyIds !== undefined) {
    if (query.keyIds.length === 0) return emptyReport(query);
    conditions.push(`key_id IN (${query.keyIds.map(() => '?').join(', ')})`);
    values.push(...query.keyIds);
  }
  const rows = database
    .prepare(
      `SELECT ${groupExpressions[query.by]} AS grp,
         SUM(final) AS requests,
         SUM(CASE WHEN final = 1 AND outcome <> 'ok' THEN 1 ELSE 0 END) AS errors,
         SUM(prompt_tokens) AS prompt_tokens,
         SUM(cached_tokens) AS cached_tokens,
         SUM(cache_write_tokens) AS cache_write_tokens,
         SUM(output_tokens) AS output_tokens,
         SUM(cost_usd) AS cost_usd
       FROM usage_ledger WHERE ${conditions.join(' AND ')}
       GROUP BY grp ORDER BY grp`,
    )
    .all(...values) as unknown as UsageRow[];
  return reportFromRows(query, rows, names);
}

/** The report of a query from its grouped rows (numbers as the driver gave them). */
export function reportFromRows(
  query: UsageQuery,
  rows: readonly UsageRow[],
  names: ReadonlyMap<string, string>,
): UsageReport {
  const lines = rows.map((row) => ({
    group: query.by === 'key' ? (names.get(row.grp) ?? row.grp) : row.grp,
    requests: row.requests,
    errors: row.errors,
    promptTokens: row.prompt_tokens,
    cachedTokens: row.cached_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    outputTokens: row.output_tokens,
    costUsd: roundUsd(row.cost_usd),
  }));
  if (query.by === 'key') lines.sort((left, right) => left.group.localeCompare(right.group));
  return { by: query.by, since: query.since, until: query.until, lines, total: sum(lines) };
}

export function emptyReport(query: UsageQuery): UsageReport {
  return { by: query.by, since: query.since, until: query.until, lines: [], total: sum([]) };
}

function sum(lines: readonly UsageLine[]): UsageLine {
  const total: UsageLine = {
    group: 'total',
    requests: 0,
    errors: 0,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
  for (const line of lines) {
    total.requests += line.requests;
    total.errors += line.errors;
    total.promptTokens += line.promptTokens;
    total.cachedTokens += line.cachedTokens;
    total.cacheWriteTokens += line.cacheWriteTokens;
    total.outputTokens += line.outputTokens;
    total.costUsd += line.costUsd;
  }
  total.costUsd = roundUsd(total.costUsd);
  return total;
}

/** Float sums of many small costs drift in the last bits: ten decimals is what headers show. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

/** A printable table (the CLI's default output). */
export function formatUsageTable(report: UsageReport): string {
  const header = [report.by, 'requests', 'errors', 'prompt', 'cached', 'cache_write', 'output', 'cost_usd'];
  const rows = [...report.lines, report.total].map((line) => [
    line.group,
    String(line.requests),
    String(line.errors),
    String(line.promptTokens),
    String(line.cachedTokens),
    String(line.cacheWriteTokens),
    String(line.outputTokens),
    formatUsd(line.costUsd),
  ]);
  return formatTable(header, rows);
}

/** Left-aligned first column, right-aligned numbers, two spaces apart. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [render(header), ...rows.map(render)].join('\n');
}
