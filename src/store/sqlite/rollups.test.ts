/**
 * The rollups the ledger keeps batch by batch equal the ones rebuilt from the ledger in SQL (the
 * migration's backfill), and their sums equal the usage report's: a chart never disagrees with
 * `modelgate usage`. Latency bins and percentiles are checked at their edges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantile } from '../../dashboard/percentiles.ts';
import { openDatabase } from './database.ts';
import { rebuildRollups } from '../rollup-backfill.ts';
import { UsageLedger } from '../../usage/ledger.ts';
import { SqliteUsageReports } from './sqlite-usage-reports.ts';
import { SqliteLedgerWriter } from './sqlite-ledger-writer.ts';
import { binUpperMs, latencyBin } from '../../usage/rollups.ts';
import { dumpRollups, rollupDifference, sampleLedgerRows } from './test-kit.ts';

test('rollups kept by the ledger equal the rollups rebuilt from it, and the usage report', async () => {
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database));
  const start = Date.UTC(2026, 10, 20, 10, 0, 0);
  const written = sampleLedgerRows(2_000, start);
  // Several batches, one of them split in the middle of a request's attempts.
  for (const [index, row] of written.entries()) {
    ledger.append(row);
    if (index % 333 === 0) ledger.flush();
  }
  ledger.flush();
  const kept = dumpRollups(database);
  assert.ok((kept[0] as unknown[]).length > 100);
  rebuildRollups(database);
  assert.equal(rollupDifference(dumpRollups(database), kept), undefined);
  const total = database
    .prepare(
      "SELECT SUM(requests) AS requests, SUM(prompt_tokens) AS prompt, SUM(output_tokens) AS output FROM usage_rollup WHERE period = 3600000 AND dimension = 'key'",
    )
    .get() as { requests: number; prompt: number; output: number };
  const report = await new SqliteUsageReports(database).report({ by: 'key', since: 0 });
  assert.equal(total.requests, report.total.requests);
  assert.equal(total.prompt, report.total.promptTokens);
  assert.equal(total.output, report.total.outputTokens);
  database.close();
});

test('a retry on another model is a fallback', () => {
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database));
  const [first] = sampleLedgerRows(1, Date.UTC(2026, 10, 20));
  assert.ok(first !== undefined);
  ledger.append({ ...first, final: false, outcome: 'failed' });
  ledger.append({ ...first, attempt: 2, model: 'A-1' });
  ledger.append({ ...first, attempt: 3, model: 'B-1' });
  ledger.flush();
  const sums = database
    .prepare(
      "SELECT SUM(attempts) AS attempts, SUM(retries) AS retries, SUM(fallbacks) AS fallbacks FROM usage_rollup WHERE period = 60000 AND dimension = 'all'",
    )
    .get();
  assert.deepEqual({ ...sums }, { attempts: 3, retries: 1, fallbacks: 1 });
  database.close();
});

test('latency bins: each 25% wider than the last; percentiles report the bin edge', () => {
  assert.equal(latencyBin(0.2), 0);
  assert.equal(latencyBin(1), 0);
  assert.equal(latencyBin(1.25), 1);
  assert.equal(latencyBin(1.26), 2);
  assert.equal(latencyBin(1e12), 80);
  for (const value of [3, 47.5, 999, 12_345]) {
    const bin = latencyBin(value);
    assert.ok(binUpperMs(bin) >= value && binUpperMs(bin - 1) < value, `${value}`);
  }
  const histogram = new Map([
    [latencyBin(10), 90],
    [latencyBin(100), 9],
    [latencyBin(1000), 1],
  ]);
  assert.equal(quantile(histogram, 0.5), Math.round(binUpperMs(latencyBin(10)) * 10) / 10);
  assert.equal(quantile(histogram, 0.95), Math.round(binUpperMs(latencyBin(100)) * 10) / 10);
  assert.equal(quantile(histogram, 1), Math.round(binUpperMs(latencyBin(1000)) * 10) / 10);
  assert.equal(quantile(new Map(), 0.5), null);
});
