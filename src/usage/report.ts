/**
 * Usage figures from the ledger, grouped by model, key or UTC day: what `modelgate usage` prints
 * and `GET /admin/usage` returns. Requests are counted once each (their final row); tokens and
 * cost are summed over every row, so retried or fanned-out attempts all count.
 */
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

/** Requests, errors, tokens and cost summed: what the usage report and the dashboard add up. */
export interface UsageSums {
  requests: number;
  errors: number;
  prompt_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

const sumFields = [
  'requests',
  'errors',
  'prompt_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'output_tokens',
  'cost_usd',
] as const;

export function emptyUsageSums(): UsageSums {
  return {
    requests: 0,
    errors: 0,
    prompt_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
  };
}

/** Adds `from` into `into` (a SQL SUM over no rows is null: nothing to add). */
export function addUsageSums(into: UsageSums, from: Readonly<Record<keyof UsageSums, number | null>>): void {
  for (const field of sumFields) into[field] += from[field] ?? 0;
}

/** What both stores report from: one row per group, sums over the query's ledger rows. */
export interface UsageRow extends UsageSums {
  grp: string;
}

/** The report of a query from its grouped rows (numbers as the driver gave them). */
export function reportFromRows(
  query: UsageQuery,
  rows: readonly UsageRow[],
  names: ReadonlyMap<string, string>,
): UsageReport {
  const lines = rows.map((row) =>
    usageLine(query.by === 'key' ? (names.get(row.grp) ?? row.grp) : row.grp, row),
  );
  if (query.by === 'key') lines.sort((left, right) => left.group.localeCompare(right.group));
  const total = emptyUsageSums();
  // The total adds the lines as shown (each cost rounded), so the table adds up.
  for (const row of rows) addUsageSums(total, { ...row, cost_usd: roundUsd(row.cost_usd) });
  return { by: query.by, since: query.since, until: query.until, lines, total: usageLine('total', total) };
}

export function emptyReport(query: UsageQuery): UsageReport {
  return reportFromRows(query, [], new Map());
}

function usageLine(group: string, sums: UsageSums): UsageLine {
  return {
    group,
    requests: sums.requests,
    errors: sums.errors,
    promptTokens: sums.prompt_tokens,
    cachedTokens: sums.cached_tokens,
    cacheWriteTokens: sums.cache_write_tokens,
    outputTokens: sums.output_tokens,
    costUsd: roundUsd(sums.cost_usd),
  };
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
