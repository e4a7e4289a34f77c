/**
 * The ledger off the event loop loses no row it acknowledged: `modelgate serve` (a child process,
 * the embedded store) is killed with SIGKILL in the middle of a load, and the store file then holds
 * at least every row the gateway had acknowledged — committed by the ledger's thread — at its last
 * scrape. Acknowledged is read from the gateway itself, in one synchronous render of `/metrics`:
 * rows appended (the token counters are fed from the very rows the ledger gets, at the moment each
 * is appended) less `modelgate_ledger_queue_rows` (rows appended and not committed yet). What a
 * SIGKILL may lose is the rest: the last window's rows and the batch being committed, as when the
 * main thread wrote them. A new process on the same file then works, and once its queue is empty a
 * second SIGKILL loses nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { alphaAuth } from '../kit/e2e.ts';
import { parseExposition, sum } from '../kit/exposition.ts';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';

const clientKey = 'mg-ledger-kill-client-0123456789';
const metricsToken = 'mg-ledger-kill-scraper-0123456789';
const directory = mkdtempSync(join(tmpdir(), 'modelgate-ledger-kill-'));
const databasePath = join(directory, 'gateway.db');
const gateways: GatewayProcess[] = [];

after(async () => {
  for (const gateway of gateways) await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

async function start(): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    MODELGATE_DB: databasePath,
    MODELGATE_KEYS: clientKey,
    MODELGATE_METRICS_TOKEN: metricsToken,
    // Metered, never refused: every request is answered and has one row with tokens.
    MODELGATE_UNLIMITED_KEYS: 'static-1',
  });
  gateways.push(gateway);
  return gateway;
}

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...alphaAuth(clientKey), 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'A-1', messages: [{ role: 'user', content: 'Hello there' }] }),
  });
  await response.text();
  return response.status;
}

/** Rows appended (from the input-token counter) and rows not committed yet, from one render. */
async function ledgerState(url: string, tokensPerRow: number): Promise<{ appended: number; queued: number }> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  assert.equal(response.status, 200);
  const samples = parseExposition(await response.text());
  return {
    appended: sum(samples, 'modelgate_tokens_total', { gen_ai_token_type: 'input' }) / tokensPerRow,
    queued: sum(samples, 'modelgate_ledger_queue_rows'),
  };
}

function storedRows(): { rows: number; input: number; integrity: string } {
  const database = openDatabase(databasePath);
  try {
    const { rows, input } = database
      .prepare('SELECT COUNT(*) AS rows, COALESCE(SUM(prompt_tokens), 0) AS input FROM usage_ledger')
      .get() as { rows: number; input: number };
    const { integrity_check: integrity } = database.prepare('PRAGMA integrity_check').get() as {
      integrity_check: string;
    };
    return { rows, input, integrity };
  } finally {
    database.close();
  }
}

async function untilQueueEmpty(url: string, tokensPerRow: number): Promise<number> {
  for (let tries = 0; tries < 500; tries++) {
    const { appended, queued } = await ledgerState(url, tokensPerRow);
    if (queued === 0) return appended;
    await delay(10);
  }
  assert.fail('the ledger queue never emptied');
}

async function kill(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill('SIGKILL');
  const { signal } = await gateway.exited;
  assert.equal(signal, 'SIGKILL');
}

test(
  'SIGKILL under load loses no acknowledged ledger row; after a restart, none at all',
  { timeout: 120_000 },
  async (t) => {
    const first = await start();
    // Calibration: every request is the same, so every row has the same input tokens.
    for (let index = 0; index < 20; index++) assert.equal(await chat(first.url), 200);
    const probe = await untilQueueEmpty(first.url, 1);
    const tokensPerRow = probe / 20;
    assert.ok(Number.isInteger(tokensPerRow) && tokensPerRow > 0, `${probe} input tokens for 20 rows`);

    // Load: 16 clients, each sending the next request once its answer arrived, until the kill.
    let answered = 20;
    let stopped = false;
    const clients = Array.from({ length: 16 }, async () => {
      while (!stopped) {
        const status = await chat(first.url).catch(() => 0);
        if (status === 200) answered++;
      }
    });
    await delay(1_500);
    const atKill = await ledgerState(first.url, tokensPerRow);
    await kill(first);
    stopped = true;
    await Promise.all(clients);
    const acknowledged = atKill.appended - atKill.queued;
    const afterKill = storedRows();
    t.diagnostic(
      `at the kill: ${atKill.appended} rows appended, ${atKill.queued} not committed; ${answered} answers; ` +
        `${afterKill.rows} rows in the file`,
    );
    assert.equal(afterKill.integrity, 'ok');
    assert.ok(atKill.appended > 100, 'the kill came in the middle of a load');
    assert.ok(
      afterKill.rows >= acknowledged,
      `${afterKill.rows} rows stored, ${acknowledged} were acknowledged`,
    );
    assert.equal(afterKill.input, afterKill.rows * tokensPerRow, 'whole rows only');

    // A new process on the same file: a queue seen empty means every row is in the file.
    const second = await start();
    for (let index = 0; index < 50; index++) assert.equal(await chat(second.url), 200);
    const appended = await untilQueueEmpty(second.url, tokensPerRow);
    assert.equal(appended, 50);
    await kill(second);
    assert.equal(storedRows().rows, afterKill.rows + 50);
  },
);
