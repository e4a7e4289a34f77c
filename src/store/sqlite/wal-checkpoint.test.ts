/**
 * SQLite copies the WAL back into the database inside the commit that crosses `wal_autocheckpoint`
 * pages, on the event loop: the store keeps that threshold small, so each copy is a short stall
 * and the WAL file stays small under a steady stream of ledger writes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteLedgerWriter } from './sqlite-ledger-writer.ts';
import { sampleLedgerRows } from './test-kit.ts';
import { openDatabase, walCheckpointPages } from './database.ts';

test('ledger writes under load keep the WAL near the checkpoint threshold, not SQLite’s 4 MiB default', () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-wal-'));
  try {
    const path = join(directory, 'store.db');
    const database = openDatabase(path);
    const setting = database.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number };
    assert.equal(setting.wal_autocheckpoint, walCheckpointPages);
    const writer = new SqliteLedgerWriter(database);
    const rows = sampleLedgerRows(30_000, Date.UTC(2026, 10, 24));
    let largestWal = 0;
    // Batches the size the ledger writes under load (20 ms of a few thousand requests a second).
    for (let index = 0; index < rows.length; index += 150) {
      writer.write(rows.slice(index, index + 150));
      largestWal = Math.max(largestWal, statSync(`${path}-wal`).size);
    }
    const written = database.prepare('SELECT COUNT(*) AS rows FROM usage_ledger').get() as { rows: number };
    assert.equal(written.rows, rows.length);
    // Some 10 MB went through the WAL; it never held more than the threshold and about one batch
    // (at SQLite's default it reaches 4 MiB, and each checkpoint copies that much in one commit).
    assert.ok(largestWal <= 1024 * 1024, `WAL grew to ${largestWal} bytes`);
    database.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
