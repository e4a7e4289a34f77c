/** Checks every case makes: the run ended well, every request was answered 2xx, the ledger agrees. */
import assert from 'node:assert/strict';
import type { CaseResult } from './stage.ts';

export function assertCleanRun(result: CaseResult): void {
  assert.ok(!result.run.timedOut && result.run.code === 0, result.explain());
  assert.ok(result.exchanges.length > 0, `no request reached the gateway\n${result.explain()}`);
  const failed = result.exchanges.filter((exchange) => exchange.status < 200 || exchange.status >= 300);
  assert.deepEqual(failed, [], result.explain());
}

/** The gateway served every request of the run on `surface` for `model`, and each call succeeded. */
export async function assertLedger(result: CaseResult, surface: string, model: string): Promise<void> {
  const rows = await result.ledger();
  assert.ok(rows.length > 0, `the ledger has no row for this run\n${result.explain()}`);
  for (const row of rows) {
    assert.deepEqual(
      { surface: row.surface, model: row.model, outcome: row.outcome },
      { surface, model, outcome: 'ok' },
      result.explain(),
    );
  }
}

/** The last line of stdout that parses as JSON (a program's report). */
export function lastJsonLine(result: CaseResult): unknown {
  const lines = result.run.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line);
    } catch {
      continue;
    }
  }
  assert.fail(`no JSON report on stdout\n${result.explain()}`);
}
