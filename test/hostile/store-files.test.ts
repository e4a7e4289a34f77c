/**
 * The store (key hashes, budgets, the usage ledger) is readable by its owner only: a database
 * modelgate creates is 0600 with its -wal and -shm files, in a 0700 directory when modelgate
 * creates that too; whatever the umask.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startGateway } from '../../src/server/start-gateway.ts';
import { alphaAuth, post } from '../kit/e2e.ts';

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(3, '0');
}

test('a new store: directory 0700, database and its -wal/-shm 0600, even with umask 000', async () => {
  const root = mkdtempSync(join(tmpdir(), 'modelgate-store-'));
  const directory = join(root, 'data', 'nested');
  const path = join(directory, 'modelgate.db');
  const previous = process.umask(0o000);
  try {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      MODELGATE_KEYS: 'mg-store-test-key-0123456789',
      MODELGATE_DB: path,
      LOG_LEVEL: 'silent',
    });
    const gateway = await startGateway(config, createLogger('silent', []));
    try {
      const answer = await post(
        gateway.url,
        '/v1/chat/completions',
        alphaAuth('mg-store-test-key-0123456789'),
        {
          model: 'A-2',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'Hi' }],
        },
      );
      assert.equal(answer.status, 200);
      // While open (WAL mode), the -wal and -shm files exist beside the database.
      assert.ok(existsSync(`${path}-wal`) && existsSync(`${path}-shm`), 'WAL files exist');
      assert.equal(mode(join(root, 'data')), '700');
      assert.equal(mode(directory), '700');
      assert.equal(mode(path), '600');
      assert.equal(mode(`${path}-wal`), '600');
      assert.equal(mode(`${path}-shm`), '600');
    } finally {
      await gateway.close();
    }
  } finally {
    process.umask(previous);
    rmSync(root, { recursive: true, force: true });
  }
});
