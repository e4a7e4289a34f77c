import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../store/sqlite/database.ts';
import { SqliteDashboardStore } from '../store/sqlite/sqlite-dashboard-store.ts';
import { modelStats } from './model-stats.ts';
import { usageBreakdown } from './usage-query.ts';
import { parseRange } from './ranges.ts';
import { maxTableRows } from './top-rows.ts';

const minute = 60_000;
const now = Date.parse('2026-11-24T12:00:30Z');

/** A store whose rollups hold `count` models (as `family/<id>` names a client may choose). */
function storeWithModels(count: number): SqliteDashboardStore {
  const database = openDatabase(':memory:');
  const insert = database.prepare(
    `INSERT INTO usage_rollup VALUES (?, ?, ?, ?, ?, 0, ?, 0, 0, 10, 0, 0, 5, ?, 0, 0)`,
  );
  const bucket = now - (now % minute) - minute;
  for (let index = 0; index < count; index++) {
    const model = `beta/attacker-${String(index).padStart(4, '0')}`;
    // The lower the index, the more requests and spend.
    const requests = count - index;
    insert.run(minute, 'model', bucket, model, requests, requests, requests / 1000);
    insert.run(minute, 'deployment', bucket, `${model}\u001f`, requests, requests, requests / 1000);
  }
  return new SqliteDashboardStore(database);
}

test('usage and model tables show the largest 100 rows and sum the rest as "other"', async () => {
  const count = maxTableRows + 50;
  const store = storeWithModels(count);
  const range = parseRange('1h', now);
  assert.ok(range !== undefined);
  const usage = await usageBreakdown(store, range, 'model', new Map());
  const rows = usage.data as Array<{ model: string; requests: number }>;
  assert.equal(rows.length, maxTableRows + 1);
  assert.equal(rows[0]?.model, 'beta/attacker-0000');
  const other = rows.at(-1);
  assert.equal(other?.model, 'other');
  // The 50 smallest: 50 + 49 + … + 1 requests.
  assert.equal(other.requests, (50 * 51) / 2);
  const models = (await modelStats(store, range)) as Array<{ model: string; requests: number }>;
  assert.equal(models.length, maxTableRows + 1);
  assert.equal(models.at(-1)?.model, 'other');
  assert.equal(models.at(-1)?.requests, (50 * 51) / 2);
  assert.ok(!models.some((row) => row.model === `beta/attacker-${count - 1}`));
});
