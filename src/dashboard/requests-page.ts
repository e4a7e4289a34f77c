/**
 * The requests page: ledger rows (never bodies), newest first, filtered and paged on the server
 * with a keyset cursor (time, row id): every page costs the same however deep, read along the
 * ledger's (created_at) or (key_id, created_at) index, which both end with the row id. Filters the
 * indexes do not cover (model, surface, outcome) look at most `scanRows` rows per page: a rare
 * value answers with fewer rows and a cursor to search further back, never with a full scan.
 * Filters are fixed SQL with bound values. Both stores keep the same columns and indexes for it (on
 * PostgreSQL the indexes end with the ledger's `id` column explicitly).
 */
import type { JsonObject } from '../ir/index.ts';
import type { DashboardStore, SqlValue } from '../store/dashboard-store.ts';

export const maxPageSize = 200;
/** Rows one page may look at for the filters no index covers. */
export const scanRows = 20_000;
const outcomes = new Set(['ok', 'aborted', 'failed', 'rejected']);

export interface RequestFilter {
  keyId?: string;
  model?: string;
  surface?: string;
  /** `ok`, `aborted`, `failed`, `rejected`, or `error` (anything but ok). */
  outcome?: string;
  /** Rows older than this cursor (`<created_at>.<id>`, the next page). */
  before?: { createdAt: number; id: number };
  limit: number;
}

/** Reads the filter from the query string; a bad value is a message for a 400. */
export function parseRequestFilter(
  search: URLSearchParams,
  keyIdOf: (text: string) => string | undefined,
): RequestFilter | string {
  const filter: RequestFilter = { limit: 50 };
  const limit = search.get('limit');
  if (limit !== null) {
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > maxPageSize)
      return `limit is a whole number from 1 to ${maxPageSize}`;
    filter.limit = value;
  }
  const before = search.get('before');
  if (before !== null) {
    const match = /^(\d{1,15})\.(\d{1,15})$/.exec(before);
    if (match === null) return 'before is a cursor from next_before';
    filter.before = { createdAt: Number(match[1]), id: Number(match[2]) };
  }
  const key = search.get('key');
  if (key !== null && key !== '') filter.keyId = keyIdOf(key) ?? key;
  const model = search.get('model');
  if (model !== null && model !== '') filter.model = model.slice(0, 256);
  const surface = search.get('surface');
  if (surface !== null && surface !== '') filter.surface = surface.slice(0, 64);
  const outcome = search.get('outcome');
  if (outcome !== null && outcome !== '') {
    if (outcome !== 'error' && !outcomes.has(outcome))
      return 'outcome is one of ok, error, aborted, failed, rejected';
    filter.outcome = outcome;
  }
  return filter;
}

interface LedgerPageRow {
  id: number;
  request_id: string;
  attempt: number;
  /** 1/0 in the embedded store, a boolean in PostgreSQL. */
  final: number | boolean;
  created_at: number;
  key_id: string;
  surface: string;
  model: string;
  family: string;
  deployment: string | null;
  stream: number | boolean;
  status: number;
  upstream_status: number | null;
  outcome: string;
  error: string | null;
  prompt_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number | null;
  ttft_ms: number | null;
  overhead_ms: number | null;
}

export async function requestsPage(
  store: DashboardStore,
  filter: RequestFilter,
  names: ReadonlyMap<string, string>,
): Promise<JsonObject> {
  // Inner: the rows in index order (key and cursor, both index-backed). Outer: the other filters,
  // over at most `scanRows` of them when there are any.
  const inner: string[] = [];
  const innerValues: SqlValue[] = [];
  if (filter.keyId !== undefined) {
    inner.push('key_id = ?');
    innerValues.push(filter.keyId);
  }
  if (filter.before !== undefined) {
    inner.push('(created_at, id) < (?, ?)');
    innerValues.push(filter.before.createdAt, filter.before.id);
  }
  const outer: string[] = [];
  const outerValues: SqlValue[] = [];
  if (filter.model !== undefined) {
    outer.push('model = ?');
    outerValues.push(filter.model);
  }
  if (filter.surface !== undefined) {
    outer.push('surface = ?');
    outerValues.push(filter.surface);
  }
  if (filter.outcome === 'error') outer.push("outcome <> 'ok'");
  else if (filter.outcome !== undefined) {
    outer.push('outcome = ?');
    outerValues.push(filter.outcome);
  }
  const innerWhere = inner.length === 0 ? '' : `WHERE ${inner.join(' AND ')}`;
  const order = 'ORDER BY created_at DESC, id DESC';
  const bounded = outer.length > 0;
  const source = bounded
    ? `(SELECT * FROM usage_ledger ${innerWhere} ${order} LIMIT ${scanRows}) AS scanned WHERE ${outer.join(' AND ')}`
    : `usage_ledger ${innerWhere}`;
  const rows = await store.all<LedgerPageRow>(
    `SELECT id, request_id, attempt, final, created_at, key_id, surface, model, family, deployment,
       stream, status, upstream_status, outcome, error, prompt_tokens, cached_tokens,
       cache_write_tokens, output_tokens, cost_usd, latency_ms, ttft_ms, overhead_ms
     FROM ${source} ${order} LIMIT ?`,
    [...innerValues, ...outerValues, filter.limit + 1],
  );
  const page = rows.slice(0, filter.limit);
  let next: string | null = null;
  const last = page[page.length - 1];
  if (rows.length > filter.limit && last !== undefined) next = `${last.created_at}.${last.id}`;
  else if (bounded) {
    // Fewer matches than a page in the rows looked at: carry on from the last row looked at.
    const [scanned] = await store.all<{ created_at: number; id: number }>(
      `SELECT created_at, id FROM usage_ledger ${innerWhere} ${order} LIMIT 1 OFFSET ${scanRows - 1}`,
      innerValues,
    );
    if (scanned !== undefined) next = `${scanned.created_at}.${scanned.id}`;
  }
  return {
    object: 'list',
    data: page.map((row) => ({
      id: row.id,
      request_id: row.request_id,
      attempt: row.attempt,
      final: row.final === true || row.final === 1,
      created_at: new Date(row.created_at).toISOString(),
      key_id: row.key_id,
      key: names.get(row.key_id) ?? row.key_id,
      surface: row.surface,
      model: row.model,
      family: row.family,
      deployment: row.deployment,
      stream: row.stream === true || row.stream === 1,
      status: row.status,
      upstream_status: row.upstream_status,
      outcome: row.outcome,
      error: row.error,
      prompt_tokens: row.prompt_tokens,
      cached_tokens: row.cached_tokens,
      cache_write_tokens: row.cache_write_tokens,
      output_tokens: row.output_tokens,
      cost_usd: row.cost_usd,
      latency_ms: row.latency_ms,
      ttft_ms: row.ttft_ms,
      overhead_ms: row.overhead_ms,
    })),
    next_before: next,
  };
}
