/**
 * A store from before the rollups fills them from its ledger at the migration, a day at a time,
 * saying how far it got: the same rollups as the ledger keeps, and a last report of all rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageLedger } from '../../usage/ledger.ts';
import { migrations, openDatabase, openMigrated } from './database.ts';
import { SqliteLedgerWriter } from './sqlite-ledger-writer.ts';
import { dumpRollups, rollupDifference, sampleLedgerRows } from './test-kit.ts';

test('the rollups backfill reports rows done of all and fills what the ledger kept', () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-backfill-'));
  const path = join(directory, 'store.db');
  try {
    const database = openDatabase(path);
    const ledger = new UsageLedger(new SqliteLedgerWriter(database));
    const day = 86_400_000;
    const first = Date.UTC(2026, 10, 20, 23, 0, 0);
    // Three days apart, and one batch across midnight: several slices, one split at a day's edge.
    for (const start of [first, first + 2 * day, first + 5 * day]) {
      for (const row of sampleLedgerRows(400, start)) ledger.append(row);
      ledger.flush();
    }
    const kept = dumpRollups(database);
    const rows = (database.prepare('SELECT COUNT(*) AS rows FROM usage_ledger').get() as { rows: number })
      .rows;
    // Back to the version before the rollups: the next open runs that migration and its backfill,
    // then the ones after it (periodic budgets, stored responses by reference) again.
    const rollupMigration = migrations.findIndex((migration) => typeof migration === 'function');
    database.exec(
      `DROP TABLE usage_rollup; DROP TABLE latency_rollup; DROP TABLE dashboard_sessions;
       ALTER TABLE client_keys DROP COLUMN budget_period;
       ALTER TABLE client_keys DROP COLUMN period_budget_usd;
       ALTER TABLE responses DROP COLUMN previous_id;
       PRAGMA user_version = ${rollupMigration};`,
    );
    database.close();

    const reports: [number, number][] = [];
    const reopened = openMigrated(path, (done, total) => reports.push([done, total]));
    assert.equal(reopened.from, rollupMigration);
    assert.ok(reports.length >= 1);
    assert.deepEqual(reports.at(-1), [rows, rows]);
    for (let index = 1; index < reports.length; index++)
      assert.ok((reports[index] as [number, number])[0] > (reports[index - 1] as [number, number])[0]);
    assert.equal(rollupDifference(dumpRollups(reopened.database), kept), undefined);
    reopened.database.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
