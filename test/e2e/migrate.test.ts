/** `modelgate migrate` on the embedded store: from the version the file was at to the latest, once. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const root = join(import.meta.dirname, '../..');
const directory = mkdtempSync(join(tmpdir(), 'modelgate-migrate-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const migrate = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), 'migrate', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });

test('a new store file is migrated from version 0; a second run finds it up to date; a stray argument is a usage error', () => {
  const path = join(directory, 'store.db');
  const first = migrate('--db', path, '--json');
  assert.equal(first.status, 0, first.stderr);
  const report = JSON.parse(first.stdout) as {
    store: string;
    location: string;
    from: number;
    to: number;
    latest: number;
  };
  assert.equal(report.store, 'embedded');
  assert.equal(report.location, path);
  assert.equal(report.from, 0);
  assert.ok(report.to > 0 && report.to === report.latest);
  const second = migrate('--db', path);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, new RegExp(`is up to date \\(schema version ${report.to}\\)`));
  const wrong = migrate('--db', path, 'extra');
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /unexpected argument extra/);
});
