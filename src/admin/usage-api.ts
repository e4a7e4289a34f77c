/** `GET /admin/usage`: the usage report's query (shared with the CLI) and its JSON body. */
import type { JsonObject } from '../ir/index.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { parseDuration, parseMoment } from '../limits/durations.ts';
import { isUsageGrouping, type UsageReport, type UsageReports } from '../usage/report.ts';
import { AdminError } from './admin-error.ts';

/** Shared with the CLI: `key` (name or id), `since` (duration or date), `until`, `by`. */
export async function usage(
  search: URLSearchParams,
  dependencies: { store: KeyStore; usage: UsageReports; clock: () => number },
): Promise<UsageReport> {
  const now = dependencies.clock();
  const by = search.get('by') ?? 'model';
  if (!isUsageGrouping(by)) throw new AdminError(400, 'invalid_request', 'by is one of model, key, day');
  const since = pastMoment(search.get('since') ?? '24h', now, 'since');
  const untilText = search.get('until');
  const until = untilText === null ? undefined : pastMoment(untilText, now, 'until');
  // An empty table would look like "no usage": a reversed range is a mistake to name.
  if (until !== undefined && until < since)
    throw new AdminError(
      400,
      'invalid_request',
      `until (${new Date(until).toISOString()}) is before since (${new Date(since).toISOString()})`,
    );
  const names = await dependencies.store.names();
  const keyText = search.get('key');
  let keyIds: string[] | undefined;
  if (keyText !== null) {
    keyIds = [...names].filter(([id, name]) => name === keyText || id === keyText).map(([id]) => id);
    if (keyIds.length === 0 && staticIdPattern.test(keyText)) keyIds = [keyText];
    if (keyIds.length === 0) throw new AdminError(404, 'not_found', 'no key with that name or id');
  }
  return dependencies.usage.report(
    { by, since, ...(until === undefined ? {} : { until }), ...(keyIds === undefined ? {} : { keyIds }) },
    names,
  );
}

/** A static key's id (`keys/client-keys.ts`, `staticKeyId`): its usage is found by it. */
const staticIdPattern = /^static-[0-9a-f]{12}$/;

/** `24h` means 24 hours ago; a date is taken as is. */
function pastMoment(text: string, now: number, name: string): number {
  const duration = parseDuration(text);
  if (duration !== undefined) return now - duration;
  const at = parseMoment(text, now);
  if (at === undefined)
    throw new AdminError(400, 'invalid_request', `${name} is a duration (24h, 7d) or a date`);
  return at;
}

export function usageBody(report: UsageReport): JsonObject {
  const line = (value: UsageReport['total']): JsonObject => ({
    [report.by]: value.group,
    requests: value.requests,
    errors: value.errors,
    prompt_tokens: value.promptTokens,
    cached_tokens: value.cachedTokens,
    cache_write_tokens: value.cacheWriteTokens,
    output_tokens: value.outputTokens,
    cost_usd: value.costUsd,
  });
  return {
    object: 'usage',
    by: report.by,
    since: new Date(report.since).toISOString(),
    until: report.until === undefined ? null : new Date(report.until).toISOString(),
    data: report.lines.map(line),
    total: { ...line(report.total), [report.by]: null },
  };
}
