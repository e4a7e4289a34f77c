import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { flushWindowMs, UsageLedger, type LedgerRow } from '../../usage/ledger.ts';
import { usageReport } from './sqlite-usage-reports.ts';
import { SqliteLedgerWriter } from './sqlite-ledger-writer.ts';

function row(overrides: Partial<LedgerRow> = {}): LedgerRow {
  return {
    requestId: 'req_1',
    attempt: 1,
    final: true,
    createdAt: Date.parse('2026-03-01T10:00:00Z'),
    keyId: 'key-a',
    surface: 'beta',
    model: 'B-1',
    family: 'beta',
    upstreamModel: 'B-1',
    deployment: 'B-1',
    stream: false,
    status: 200,
    upstreamStatus: 200,
    outcome: 'ok',
    error: undefined,
    promptTokens: 10,
    cachedTokens: 2,
    cacheWriteTokens: 1,
    outputTokens: 5,
    reasoningTokens: 0,
    costUsd: 0.000105,
    usageEstimated: false,
    latencyMs: 12.345,
    ttftMs: 3.2,
    overheadMs: 0.41,
    traceId: undefined,
    ...overrides,
  };
}

const count = (database: ReturnType<typeof openDatabase>): number =>
  (database.prepare('SELECT COUNT(*) AS n FROM usage_ledger').get() as { n: number }).n;

test(`rows are written in one batch within ${flushWindowMs} ms, with the keys' spend`, (context) => {
  context.mock.timers.enable({ apis: ['setTimeout'] });
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database));
  ledger.append(row());
  ledger.append(row({ requestId: 'req_2', costUsd: 0.5 }));
  ledger.append(row({ requestId: 'req_3', keyId: 'key-b', costUsd: 0 }));
  assert.equal(count(database), 0, 'nothing written on the request path');
  context.mock.timers.tick(flushWindowMs - 1);
  assert.equal(count(database), 0);
  context.mock.timers.tick(1);
  assert.equal(count(database), 3);
  const spend = database.prepare('SELECT key_id, spent_usd FROM key_spend ORDER BY key_id').all();
  assert.deepEqual(
    spend.map((entry) => ({ ...entry })),
    [{ key_id: 'key-a', spent_usd: 0.500105 }],
  );
  const stored = database.prepare('SELECT * FROM usage_ledger WHERE request_id = ?').get('req_1');
  assert.equal(stored?.latency_ms, 12.35);
  assert.equal(stored.cache_write_tokens, 1);
  assert.equal(stored.upstream_model, 'B-1');
});

test('a failed write keeps the rows and retries; close() writes what is pending', (context) => {
  context.mock.timers.enable({ apis: ['setTimeout'] });
  const database = openDatabase(':memory:');
  const errors: unknown[] = [];
  const ledger = new UsageLedger(new SqliteLedgerWriter(database), {
    onError: (error) => errors.push(error),
  });
  database.exec(
    "CREATE TRIGGER refuse BEFORE INSERT ON usage_ledger BEGIN SELECT RAISE(ABORT, 'disk full'); END",
  );
  ledger.append(row());
  ledger.append(row({ requestId: 'req_2' }));
  context.mock.timers.tick(flushWindowMs);
  assert.equal(errors.length, 1);
  assert.equal(ledger.pending, 2);
  assert.equal(count(database), 0, 'the batch was rolled back whole');
  database.exec('DROP TRIGGER refuse');
  ledger.append(row({ requestId: 'req_3' }));
  ledger.close();
  assert.equal(count(database), 3);
  ledger.append(row({ requestId: 'req_4' }));
  assert.equal(count(database), 4, 'after close, rows are written at once');
});

test('the usage report groups by model, key and day; requests count once, tokens per attempt', () => {
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database));
  const day2 = Date.parse('2026-03-02T23:59:00Z');
  ledger.append(
    row({
      final: false,
      attempt: 1,
      status: 200,
      upstreamStatus: 503,
      outcome: 'failed',
      promptTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    }),
  );
  ledger.append(row({ attempt: 2 }));
  ledger.append(
    row({
      requestId: 'req_2',
      keyId: 'key-b',
      model: 'A-2',
      createdAt: day2,
      outcome: 'rejected',
      attempt: 0,
      status: 429,
      promptTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    }),
  );
  ledger.close();
  const names = new Map([['key-a', 'alpha team']]);
  const byModel = usageReport(database, { by: 'model', since: 0 }, names);
  assert.deepEqual(
    byModel.lines.map((line) => [line.group, line.requests, line.errors, line.promptTokens, line.costUsd]),
    [
      ['A-2', 1, 1, 0, 0],
      ['B-1', 1, 0, 10, 0.000105],
    ],
  );
  assert.equal(byModel.total.requests, 2);
  const byKey = usageReport(database, { by: 'key', since: 0 }, names);
  assert.deepEqual(
    byKey.lines.map((line) => line.group),
    ['alpha team', 'key-b'],
  );
  const byDay = usageReport(database, { by: 'day', since: 0 }, names);
  assert.deepEqual(
    byDay.lines.map((line) => line.group),
    ['2026-03-01', '2026-03-02'],
  );
  const filtered = usageReport(database, { by: 'model', since: 0, keyIds: ['key-b'] }, names);
  assert.deepEqual(
    filtered.lines.map((line) => line.group),
    ['A-2'],
  );
  const recent = usageReport(database, { by: 'model', since: day2 }, names);
  assert.equal(recent.total.requests, 1);
  assert.equal(usageReport(database, { by: 'model', since: 0, keyIds: [] }).total.requests, 0);
});

test('large batches (multi-row inserts and the rest) keep every row and field', () => {
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database));
  for (let index = 0; index < 130; index++)
    ledger.append(
      row({
        requestId: `req_${index}`,
        outputTokens: index,
        reasoningTokens: index % 2,
        costUsd: 0.001,
        traceId: index === 129 ? '4bf92f3577b34da6a3ce929d0e0e4736' : undefined,
      }),
    );
  assert.equal(ledger.flush(), 130);
  const summary = database
    .prepare(
      'SELECT COUNT(*) AS n, SUM(output_tokens) AS output, COUNT(DISTINCT request_id) AS ids FROM usage_ledger',
    )
    .get();
  assert.deepEqual({ ...summary }, { n: 130, output: (129 * 130) / 2, ids: 130 });
  const spent = database.prepare('SELECT spent_usd FROM key_spend').get()!.spent_usd;
  assert.ok(Math.abs(Number(spent) - 0.13) < 1e-9);
  const last = database.prepare("SELECT * FROM usage_ledger WHERE request_id = 'req_129'").get();
  assert.equal(last?.deployment, 'B-1');
  assert.equal(last.overhead_ms, 0.41);
  assert.equal(last.reasoning_tokens, 1);
  assert.equal(last.trace_id, '4bf92f3577b34da6a3ce929d0e0e4736');
});

test('a batch of any size is written whole, in order, each row once (chunks of 64, 32, … 1)', () => {
  const database = openDatabase(':memory:');
  const writer = new SqliteLedgerWriter(database);
  let written = 0;
  for (const size of [1, 3, 37, 63, 64, 65, 127]) {
    const batch = Array.from({ length: size }, (_, index) =>
      row({ requestId: `req_${size}_${index}`, outputTokens: index }),
    );
    writer.write(batch);
    written += size;
    const rows = database
      .prepare('SELECT request_id, output_tokens FROM usage_ledger WHERE request_id LIKE ? ORDER BY rowid')
      .all(`req_${size}_%`);
    assert.deepEqual(
      rows.map((stored) => [stored.request_id, stored.output_tokens]),
      batch.map((sent) => [sent.requestId, sent.outputTokens]),
    );
  }
  assert.equal(database.prepare('SELECT COUNT(*) AS n FROM usage_ledger').get()?.n, written);
});

test('a large backlog is written in slices, the event loop free between them; spend matches', async () => {
  const database = openDatabase(':memory:');
  const ledger = new UsageLedger(new SqliteLedgerWriter(database), { flushWindowMs: 1 });
  for (let index = 0; index < 600; index++) ledger.append(row({ requestId: `req_${index}`, costUsd: 0.001 }));
  // What other work (a request) sees between two turns of the event loop.
  const seen: number[] = [];
  while (ledger.written < 600) {
    seen.push(ledger.written);
    if (ledger.written === 256 && ledger.pending === 344)
      ledger.append(row({ requestId: 'req_late', costUsd: 0.001 }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(
    seen.includes(256) && seen.includes(512),
    `slices of 256 rows: saw ${[...new Set(seen)].join(', ')}`,
  );
  assert.equal(count(database), 601, 'a row appended meanwhile goes with the rest');
  assert.equal(ledger.pending, 0);
  const spend = database.prepare('SELECT spent_usd FROM key_spend WHERE key_id = ?').get('key-a');
  assert.ok(Math.abs(Number(spend?.spent_usd) - 0.601) < 1e-9, String(spend?.spent_usd));
});
