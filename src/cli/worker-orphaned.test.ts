/**
 * A worker whose primary dies (`kill -9` of the primary) loses its channel to it, and node:cluster
 * ends it at once (process.exit). This test is the primary: it forks `modelgate serve` as a worker,
 * gets one answer through it, then closes the channel as the primary's death does. The worker
 * exits, and the answer's ledger row (still within the 100 ms flush window) is in the store file.
 */
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const clientKey = 'mg-orphaned-worker-key-0123456789';

test('a worker whose primary is gone exits at once and writes its last ledger rows first', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-orphan-'));
  const database = join(directory, 'gateway.db');
  try {
    const environment: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env))
      if (value !== undefined && !/^(MODELGATE_|ALPHA_|BETA_|GAMMA_|SIMULATOR_|NODE_TEST)/.test(name))
        environment[name] = value;
    cluster.setupPrimary({ exec: main, args: ['serve'], silent: true });
    const worker = cluster.fork({
      ...environment,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      MODELGATE_DB: database,
      MODELGATE_KEYS: clientKey,
    });
    const exited = once(worker.process, 'exit');
    const url = await new Promise<string>((resolve, reject) => {
      worker.on('message', (message: { modelgate?: string; url?: string }) => {
        if (message.modelgate === 'listening' && message.url !== undefined) resolve(message.url);
      });
      void exited.then(() => reject(new Error('the worker exited before it listened')));
    });
    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'A-3', max_tokens: 4, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.equal(answer.status, 200, await answer.text());
    const requestId = answer.headers.get('x-request-id');
    // The channel closes as when the primary is killed: node:cluster exits the worker at once.
    worker.process.disconnect();
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    const store = new DatabaseSync(database, { readOnly: true });
    const rows = store
      .prepare('SELECT count(*) AS n FROM usage_ledger WHERE request_id = ?')
      .get(requestId) as {
      n: number;
    };
    store.close();
    assert.equal(rows.n, 1, 'the row appended just before the exit was written');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
