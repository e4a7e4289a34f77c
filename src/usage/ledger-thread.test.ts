import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase, type Database } from '../store/sqlite/database.ts';
import { SqliteLedgerWriter } from '../store/sqlite/sqlite-ledger-writer.ts';
import { sampleLedgerRows } from '../store/sqlite/test-kit.ts';
import { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { ThreadedLedger } from './ledger-thread.ts';
import { embeddedLedgerTarget } from '../store/sqlite/sqlite-ledger-writer.ts';
import { outboxLedgerTarget } from '../store/postgres/ledger-outbox.ts';
import { LedgerOutbox } from '../store/postgres/ledger-outbox.ts';

const directory = mkdtempSync(join(tmpdir(), 'modelgate-ledger-thread-'));
after(() => {
  rmSync(directory, { recursive: true, force: true });
});

let files = 0;
function storeFile(): { path: string; database: Database } {
  const path = join(directory, `ledger-${++files}.db`);
  return { path, database: openDatabase(path) };
}

const rowCount = (database: Database): number =>
  (database.prepare('SELECT COUNT(*) AS n FROM usage_ledger').get() as { n: number }).n;
const spent = (database: Database): number =>
  (database.prepare('SELECT SUM(spent_usd) AS total FROM key_spend').get() as { total: number | null })
    .total ?? 0;

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (condition()) return;
    await delay(10);
  }
  assert.fail(`never happened: ${what}`);
}

test('rows are written by the thread, with the spend; pending counts them until it acknowledged them', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  const rows = sampleLedgerRows(700, Date.parse('2026-03-01T10:00:00Z'));
  for (const row of rows) ledger.append(row);
  assert.equal(ledger.pending, rows.length, 'nothing written on the request path');
  await until(() => ledger.pending === 0, 'every row acknowledged');
  // Acknowledged means committed: another connection sees every row.
  assert.equal(rowCount(database), rows.length);
  const cost = rows.reduce((total, row) => total + row.costUsd, 0);
  assert.ok(Math.abs(spent(database) - cost) < 1e-9, 'the keys’ spend in the same transactions');
  assert.equal(ledger.writtenHere, 0);
  await ledger.close();
  database.close();
});

test('the thread starts with the first row: an idle ledger has none, and its first rows are written', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  await delay(50);
  assert.equal(ledger.threadStarted, false);
  const rows = sampleLedgerRows(3, 0);
  for (const row of rows) ledger.append(row);
  assert.equal(ledger.threadStarted, true);
  await until(() => ledger.pending === 0, 'the first rows acknowledged');
  assert.equal(rowCount(database), rows.length);
  assert.equal(ledger.writtenHere, 0);
  await ledger.close();
  database.close();
});

test('an idle ledger closes without a thread', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  await ledger.close();
  assert.equal(ledger.threadStarted, false);
  ledger.append(sampleLedgerRows(1, 0)[0] as ReturnType<typeof sampleLedgerRows>[number]);
  assert.equal(rowCount(database), 1, 'a row after close is written at once, here');
  database.close();
});

test('flush is synchronous: when it returns every row is committed (a process on its way out)', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  const rows = sampleLedgerRows(300, 0);
  for (const row of rows) ledger.append(row);
  ledger.flush();
  assert.equal(rowCount(database), rows.length);
  assert.equal(ledger.pending, 0);
  await ledger.close();
  database.close();
});

test('close drains everything; a row appended after close is written at once', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  const rows = sampleLedgerRows(1_000, 0);
  const last = rows.pop() as (typeof rows)[number];
  for (const row of rows) ledger.append(row);
  await ledger.close();
  assert.equal(rowCount(database), rows.length);
  ledger.append(last);
  assert.equal(rowCount(database), rows.length + 1);
  assert.equal(ledger.writtenHere, 1);
  database.close();
});

test('a batch sent again after a crash is written once, even when it had committed', () => {
  const database = openDatabase(':memory:');
  const writer = new SqliteLedgerWriter(database);
  const rows = sampleLedgerRows(150, 0);
  const batch = rows.slice(0, 100);
  writer.write(batch);
  writer.writeOnce(batch);
  assert.equal(rowCount(database), 100);
  writer.writeOnce(rows.slice(100));
  assert.equal(rowCount(database), rows.length);
  database.close();
});

test('the thread crashing mid-write loses nothing and duplicates nothing; the crash is reported', async () => {
  const { path, database } = storeFile();
  const errors: string[] = [];
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database), {
    flushWindowMs: 1,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  });
  const rows = sampleLedgerRows(2_000, 0);
  // The test's connection holds the write lock: the thread is stuck inside its first batch.
  database.exec('BEGIN IMMEDIATE');
  for (const row of rows.slice(0, 1_000)) ledger.append(row);
  await delay(50);
  const crashed = ledger.crashThreadForTest();
  database.exec('COMMIT');
  await crashed;
  for (const row of rows.slice(1_000)) ledger.append(row);
  await until(() => ledger.pending === 0, 'every row acknowledged by the new thread');
  assert.equal(rowCount(database), rows.length);
  assert.equal(ledger.restarts, 1);
  assert.ok(
    errors.some((message) => message.includes('usage ledger thread exited')),
    errors.join('\n'),
  );
  await ledger.close();
  database.close();
});

test('a full queue makes the hand-off wait, then keeps the rows in memory, counted and reported', async () => {
  const { path, database } = storeFile();
  const errors: string[] = [];
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database), {
    flushWindowMs: 1,
    maxQueuedRows: 10,
    fullWaitMs: 30,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  });
  const rows = sampleLedgerRows(15, 0).slice(0, 15);
  database.exec('BEGIN IMMEDIATE');
  for (const row of rows.slice(0, 10)) ledger.append(row);
  await delay(20);
  for (const row of rows.slice(10)) ledger.append(row);
  await until(() => ledger.heldBack > 0, 'the second batch held back');
  assert.equal(ledger.queueFullWaits >= 1, true);
  assert.equal(ledger.pending, 15, 'held back, not dropped');
  assert.ok(
    errors.some((message) => message.includes('usage ledger queue full')),
    errors.join('\n'),
  );
  database.exec('COMMIT');
  await until(() => ledger.pending === 0, 'the thread caught up');
  assert.equal(rowCount(database), 15);
  await ledger.close();
  database.close();
});

test('a thread that cannot open its file is started again until it can; nothing is lost', async () => {
  const blocked = join(directory, 'not-yet');
  writeFileSync(blocked, 'a file where the store’s folder should be');
  const path = join(blocked, 'ledger.db');
  const errors: string[] = [];
  const ledger = new ThreadedLedger(
    embeddedLedgerTarget(path),
    () => assert.fail('the thread writes everything'),
    {
      flushWindowMs: 1,
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    },
  );
  const rows = sampleLedgerRows(50, 0);
  for (const row of rows) ledger.append(row);
  await until(() => ledger.restarts >= 2, 'the thread failed and was started again');
  assert.equal(ledger.pending, rows.length);
  rmSync(blocked);
  await until(() => ledger.pending === 0, 'written once the file could be opened');
  await ledger.close();
  const database = openDatabase(path);
  assert.equal(rowCount(database), rows.length);
  database.close();
});

test('with PostgreSQL the thread appends to the outbox file, and says so after each commit (the shipper wakes)', async () => {
  const path = join(directory, 'outbox.db');
  const outbox = new LedgerOutbox(path);
  let written = 0;
  const ledger = new ThreadedLedger(outboxLedgerTarget(path), () => outbox, {
    onWritten: () => {
      written++;
    },
  });
  const rows = sampleLedgerRows(400, 0);
  for (const row of rows) ledger.append(row);
  await until(() => ledger.pending === 0 && written > 0, 'the rows in the outbox');
  assert.deepEqual(
    outbox.take(10_000).map((entry) => entry.row),
    JSON.parse(JSON.stringify(rows)),
  );
  await ledger.close();
  outbox.close();
});

test('the live tail sees every row as it is appended, through a detached watch', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database));
  const { watch } = ledger;
  const seen: string[] = [];
  const stop = watch((row) => seen.push(row.requestId));
  const rows = sampleLedgerRows(5, 0);
  for (const row of rows) ledger.append(row);
  stop();
  ledger.append(sampleLedgerRows(6, 0).at(-1) as (typeof rows)[number]);
  assert.deepEqual(
    seen,
    rows.map((row) => row.requestId),
  );
  await ledger.close();
  database.close();
});

test('what the thread went through reaches /metrics: a crash is one restart', async () => {
  const { path, database } = storeFile();
  const ledger = new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database), {
    flushWindowMs: 1,
    onError: () => undefined,
  });
  const metrics = new GatewayMetrics({ models: [], perKeyLabels: false, maxSeries: 100 });
  metrics.collectFrom({
    inFlight: () => 0,
    shed: () => 0,
    ledgerQueue: () => ledger.pending,
    ledgerThread: () => ledger.threadEvents(),
    breakers: () => [],
  });
  const restarts = (): string | undefined =>
    metrics
      .render()
      .split('\n')
      .find((line) => line.startsWith('modelgate_ledger_thread_events_total{event="restart"}'));
  assert.equal(restarts(), 'modelgate_ledger_thread_events_total{event="restart"} 0');
  await ledger.crashThreadForTest();
  for (const row of sampleLedgerRows(10, 0)) ledger.append(row);
  await until(() => ledger.pending === 0, 'the rows acknowledged by the new thread');
  assert.equal(restarts(), 'modelgate_ledger_thread_events_total{event="restart"} 1');
  await ledger.close();
  database.close();
});
