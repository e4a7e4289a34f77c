/**
 * Instances on one machine may share the store file, and an instance's workers share its outbox
 * file: started at once, every process opens (and the first migrates) the same fresh file. None
 * may fail with "database is locked", and the migrations apply once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrations } from './database.ts';

const processes = 6;

/** Runs `source` (an ES module) in `processes` processes at once; resolves with each one's exit code and stderr. */
async function runAtOnce(source: string, path: string): Promise<{ code: number | null; stderr: string }[]> {
  return Promise.all(
    Array.from(
      { length: processes },
      () =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', source, path], {
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
            stderr += chunk;
          });
          child.once('exit', (code) => resolve({ code, stderr }));
        }),
    ),
  );
}

const moduleUrl = (file: string): string => JSON.stringify(new URL(file, import.meta.url).href);

test('processes opening one fresh store file at once all start; the migrations apply once', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-open-'));
  try {
    const path = join(directory, 'shared.db');
    const results = await runAtOnce(
      `const { openDatabase } = await import(${moduleUrl('./database.ts')});
       openDatabase(process.argv[1]).close();`,
      path,
    );
    assert.deepEqual(
      results.map((result) => result.code),
      Array.from({ length: processes }, () => 0),
      results.map((result) => result.stderr).join('\n'),
    );
    const database = new DatabaseSync(path, { readOnly: true });
    const { user_version: version } = database.prepare('PRAGMA user_version').get() as {
      user_version: number;
    };
    database.close();
    assert.equal(version, migrations.length);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('processes opening one fresh outbox file at once all start', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-open-'));
  try {
    const results = await runAtOnce(
      `const { LedgerOutbox } = await import(${moduleUrl('../postgres/ledger-outbox.ts')});
       new LedgerOutbox(process.argv[1]).close();`,
      join(directory, 'ledger-outbox.db'),
    );
    assert.deepEqual(
      results.map((result) => result.code),
      Array.from({ length: processes }, () => 0),
      results.map((result) => result.stderr).join('\n'),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
