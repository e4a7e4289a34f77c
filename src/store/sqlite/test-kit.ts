/** Test kit for the ledger and its rollups: sample rows and a store-neutral dump of the rollups. */
import { isDeepStrictEqual } from 'node:util';
import type { Database } from './database.ts';
import type { LedgerRow } from '../../usage/ledger.ts';
import { parseCounts } from '../rollup-backfill.ts';

/** Ledger rows of every kind (retries, failures, refusals, deployments, missing timings), spread over hours. */
export function sampleLedgerRows(count: number, start: number): LedgerRow[] {
  const made: LedgerRow[] = [];
  for (let index = 0; index < count; index++) {
    const retried = index % 11 === 0;
    const base: LedgerRow = {
      requestId: `req_${index}`,
      attempt: 1,
      final: !retried,
      createdAt: start + index * 7_919,
      keyId: `key-${index % 3}`,
      surface: ['alpha', 'beta', 'gamma', 'unified'][index % 4] as string,
      model: ['A-1', 'B-1', 'C-1'][index % 3] as string,
      family: ['alpha', 'beta', 'gamma'][index % 3] as string,
      upstreamModel: undefined,
      deployment: index % 2 === 0 ? 'east' : undefined,
      stream: index % 2 === 0,
      status: index % 13 === 0 ? 502 : 200,
      upstreamStatus: 200,
      outcome: index % 13 === 0 ? 'failed' : index % 17 === 0 ? 'rejected' : 'ok',
      error: undefined,
      promptTokens: retried ? 0 : 10 + index,
      cachedTokens: index % 5,
      cacheWriteTokens: index % 2,
      reasoningTokens: 0,
      traceId: undefined,
      outputTokens: retried ? 0 : 3 + (index % 40),
      costUsd: retried ? 0 : 0.000125 * (index % 9),
      usageEstimated: false,
      latencyMs: index % 19 === 0 ? undefined : 0.5 + ((index * 37) % 5_000),
      ttftMs: index % 3 === 0 ? undefined : 1 + ((index * 13) % 900),
      overheadMs: index % 7 === 0 ? undefined : 0.25 + (index % 4),
    };
    made.push(base);
    // A retried request: its second attempt, on the same model, carries the usage.
    if (retried)
      made.push({ ...base, attempt: 2, final: true, promptTokens: 5, outputTokens: 4, costUsd: 0.0005 });
  }
  return made;
}

/**
 * The embedded store's rollups, comparable across stores: costs and overheads at fixed precision
 * (float sums in another order), each histogram as bin → count.
 */
export function dumpRollups(database: Database): unknown[] {
  const usage = database
    .prepare('SELECT * FROM usage_rollup ORDER BY period, dimension, bucket, value')
    .all()
    .map((row) => ({
      ...row,
      cost_usd: Math.round(Number(row.cost_usd) * 1e9),
      overhead_ms: Math.round(Number(row.overhead_ms) * 1e3),
    }));
  const latency = database
    .prepare('SELECT * FROM latency_rollup ORDER BY period, model, bucket, metric')
    .all()
    .map((row) => ({ ...row, counts: Object.fromEntries(parseCounts(String(row.counts))) }));
  return [usage, latency];
}

/**
 * Where two dumps first differ, or undefined when they are the same (a short message: assert's
 * own diff of thousands of rows takes minutes).
 */
export function rollupDifference(
  actual: readonly unknown[],
  expected: readonly unknown[],
): string | undefined {
  for (const [table, name] of ['usage_rollup', 'latency_rollup'].entries()) {
    const got = actual[table] as unknown[];
    const want = expected[table] as unknown[];
    for (let index = 0; index < Math.max(got.length, want.length); index++)
      if (!isDeepStrictEqual(got[index], want[index]))
        return `${name} row ${index}: ${JSON.stringify(got[index])}, expected ${JSON.stringify(want[index])}`;
  }
  return undefined;
}
