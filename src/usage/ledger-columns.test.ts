import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase, type Database } from '../store/sqlite/database.ts';
import { embeddedLedgerTarget, SqliteLedgerWriter } from '../store/sqlite/sqlite-ledger-writer.ts';
import { dumpRollups, rollupDifference, sampleLedgerRows } from '../store/sqlite/test-kit.ts';
import { ThreadedLedger } from './ledger-thread.ts';
import type { LedgerRow } from './ledger.ts';

const directory = mkdtempSync(join(tmpdir(), 'modelgate-ledger-columns-'));
after(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Rows with every kind of value a column can hold, the awkward ones included. */
function awkwardRows(): LedgerRow[] {
  const start = Date.parse('2026-03-01T10:00:00Z');
  const rows = sampleLedgerRows(150, start).map((row, index) => ({
    ...row,
    model: index % 5 === 0 ? 'modèle-✓-😀' : row.model,
    upstreamModel: index % 4 === 0 ? 'up"stream\\model\n' : row.upstreamModel,
    error: index % 6 === 0 ? 'upstream_timeout' : row.error,
    traceId: index % 2 === 0 ? '4bf92f3577b34da6a3ce929d0e0e4736' : undefined,
    latencyMs: row.latencyMs === undefined ? undefined : row.latencyMs + index / 3 + 0.005,
    ttftMs: row.ttftMs === undefined ? undefined : 0.1 + 0.2 * index,
    overheadMs: row.overheadMs === undefined ? undefined : (index * 0.1) / 3,
    costUsd: row.costUsd === 0 ? 0 : row.costUsd / 7 + Number.EPSILON * index,
    usageEstimated: index % 9 === 0,
    createdAt: row.createdAt + (index % 3 === 0 ? 0.5 : 0),
  }));
  // A refused request: no attempt, no upstream.
  rows.push({ ...(rows[1] as LedgerRow), requestId: 'req_refused', attempt: 0, upstreamStatus: undefined });
  return rows;
}

/** What the table must hold for a row, each column from the row itself. */
function expectedColumns(row: LedgerRow): unknown[] {
  const ms = (value: number | undefined): number | null =>
    value === undefined ? null : Math.round(value * 100) / 100;
  return [
    row.requestId,
    row.attempt,
    row.final ? 1 : 0,
    row.createdAt,
    row.keyId,
    row.surface,
    row.model,
    row.family,
    row.upstreamModel ?? null,
    row.deployment ?? null,
    row.stream ? 1 : 0,
    row.status,
    row.upstreamStatus ?? null,
    row.outcome,
    row.error ?? null,
    row.promptTokens,
    row.cachedTokens,
    row.cacheWriteTokens,
    row.outputTokens,
    row.costUsd,
    row.usageEstimated ? 1 : 0,
    ms(row.latencyMs),
    ms(row.ttftMs),
    ms(row.overheadMs),
    row.reasoningTokens,
    row.traceId ?? null,
  ];
}

const storedColumns = (database: Database): unknown[][] =>
  database
    .prepare(
      `SELECT request_id, attempt, final, created_at, key_id, surface, model, family, upstream_model,
         deployment, stream, status, upstream_status, outcome, error, prompt_tokens, cached_tokens,
         cache_write_tokens, output_tokens, cost_usd, usage_estimated, latency_ms, ttft_ms, overhead_ms,
         reasoning_tokens, trace_id FROM usage_ledger ORDER BY id`,
    )
    .all()
    .map((stored) => Object.values(stored));

const spend = (database: Database): unknown[] =>
  database
    .prepare('SELECT key_id, spent_usd FROM key_spend ORDER BY key_id')
    .all()
    .map((stored) => ({ ...stored }));

async function writtenByThread(rows: readonly LedgerRow[], batchSize: number): Promise<Database> {
  const path = join(directory, `thread-${batchSize}.db`);
  const database = openDatabase(path);
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database), {
    flushWindowMs: 1,
  });
  // Batch by batch: each its own window, so the thread gets several hand-offs of odd sizes.
  for (let start = 0; start < rows.length; start += batchSize) {
    for (const row of rows.slice(start, start + batchSize)) ledger.append(row);
    for (let tries = 0; ledger.pending > 0 && tries < 500; tries++) await delay(2);
  }
  assert.equal(ledger.pending, 0, 'every row acknowledged');
  assert.equal(ledger.writtenHere, 0, 'every row written by the thread');
  await ledger.close();
  return database;
}

test('the thread stores every column of every row as the row says, as a write on this thread does', async () => {
  const rows = awkwardRows();
  const here = openDatabase(':memory:');
  const writer = new SqliteLedgerWriter(here);
  for (let start = 0; start < rows.length; start += 37) writer.write(rows.slice(start, start + 37));
  const expected = rows.map(expectedColumns);
  assert.deepEqual(storedColumns(here), expected);
  for (const batchSize of [37, 64, 1]) {
    const database = await writtenByThread(rows, batchSize);
    assert.deepEqual(storedColumns(database), expected, `batches of ${batchSize}`);
    // Batched as here: the same rollups and spend (a retry is told from a fallback within its batch).
    if (batchSize === 37) {
      assert.equal(rollupDifference(dumpRollups(database), dumpRollups(here)), undefined);
      assert.deepEqual(spend(database), spend(here), 'the same sums in the same order');
    }
    database.close();
  }
  here.close();
});

test('numbers JSON cannot carry (an infinite cost, an infinite count) reach the table as they are', async () => {
  const rows = sampleLedgerRows(3, Date.parse('2026-03-01T10:00:00Z'));
  rows[1] = { ...(rows[1] as LedgerRow), costUsd: Number.POSITIVE_INFINITY };
  rows[2] = { ...(rows[2] as LedgerRow), latencyMs: Number.NaN };
  const countedWrong = sampleLedgerRows(2, Date.parse('2026-03-01T11:00:00Z'));
  countedWrong[1] = { ...(countedWrong[1] as LedgerRow), promptTokens: Number.POSITIVE_INFINITY };
  rows.push(...countedWrong);
  const database = await writtenByThread(rows, 5);
  // A time that is not a number is stored as no time (NULL), as binding it always did.
  const expected = rows
    .map(expectedColumns)
    .map((columns) => columns.map((value) => (Number.isNaN(value) ? null : value)));
  assert.deepEqual(storedColumns(database), expected);
  database.close();
});
