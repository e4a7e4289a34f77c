/**
 * The dashboard's figures: `GET /dashboard/api/overview|usage|models` (rollups over a range),
 * `requests` (the ledger, keyset-paged) and `tail` (SSE of this process's ledger rows).
 */
import { AdminError } from '../admin/admin-error.ts';
import type { DashboardCall, DashboardContext, DashboardEndpoint } from './dashboard-endpoint.ts';
import { securityHeaders, sendJson } from './http.ts';
import { modelStats } from './model-stats.ts';
import { overview } from './overview-query.ts';
import { parseRange, type Range } from './ranges.ts';
import { parseRequestFilter, requestsPage } from './requests-page.ts';
import { budgetBurnDown, isUsageDimension, usageBreakdown } from './usage-query.ts';

/** A figures endpoint: read-only, for a signed-in session. */
function figures(
  name: string,
  answer: (call: DashboardCall, context: DashboardContext) => Promise<void> | void,
): DashboardEndpoint {
  return {
    methods: 'any',
    path: `/dashboard/api/${name}`,
    signedIn: true,
    answer: (call, context) => {
      if (call.request.method !== 'GET') throw new AdminError(405, 'method_not_allowed', 'Use GET');
      return answer(call, context);
    },
  };
}

/** The range a rollup figure covers (`range=1h|24h|7d|30d`). */
function rangeOf({ search }: DashboardCall, now: number): Range {
  const range = parseRange(search.get('range'), now);
  if (range === undefined) throw new AdminError(400, 'invalid_request', 'range is one of 1h, 24h, 7d, 30d');
  return range;
}

export const figuresEndpoints: readonly DashboardEndpoint[] = [
  figures('overview', async (call, context) => {
    const now = context.admin.clock();
    sendJson(call.response, 200, await overview(context.store, rangeOf(call, now), now));
  }),
  figures('usage', async (call, context) => {
    const { admin } = context;
    const range = rangeOf(call, context.admin.clock());
    const by = call.search.get('by') ?? 'key';
    if (!isUsageDimension(by))
      throw new AdminError(400, 'invalid_request', 'by is one of key, model, family');
    const budgeted = (await admin.store.list(false))
      .flatMap((record) =>
        record.budgetUsd === undefined
          ? []
          : [{ id: record.id, name: record.name, budgetUsd: record.budgetUsd, spentUsd: record.spentUsd }],
      )
      .slice(0, 20);
    sendJson(call.response, 200, {
      ...(await usageBreakdown(context.store, range, by, await admin.store.names())),
      budgets: await budgetBurnDown(context.store, range, budgeted),
    });
  }),
  figures('models', async (call, context) => {
    const range = rangeOf(call, context.admin.clock());
    sendJson(call.response, 200, {
      range: range.name,
      health: context.admin.health?.() ?? null,
      data: await modelStats(context.store, range),
    });
  }),
  figures('requests', async ({ response, search }, context) => {
    const names = await context.admin.store.names();
    const filter = parseRequestFilter(search, (text) => keyIdOf(names, text));
    if (typeof filter === 'string') throw new AdminError(400, 'invalid_request', filter);
    sendJson(response, 200, await requestsPage(context.store, filter, names));
  }),
  figures('tail', ({ response }, context) => {
    if (!context.tail.open(response, securityHeaders))
      throw new AdminError(503, 'too_many_viewers', 'Too many live-tail viewers');
  }),
];

function keyIdOf(names: ReadonlyMap<string, string>, text: string): string | undefined {
  if (names.has(text)) return text;
  for (const [id, name] of names) if (name === text) return id;
  return undefined;
}
