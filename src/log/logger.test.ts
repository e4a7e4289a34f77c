import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from './logger.ts';

const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));

/** Runs `code` in a child process with `createLogger` imported; returns its stderr lines. */
function stderrOf(code: string): string[] {
  const program = `import { createLogger } from ${JSON.stringify(logger)};\n${code}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return child.stderr.split('\n').filter((line) => line.startsWith('{'));
}

test('secrets are redacted and levels filtered', () => {
  const lines: string[] = [];
  const log = createLogger('info', ['sk-secret-value'], (line) => lines.push(line));
  log.debug('hidden');
  log.info('called', { detail: 'upstream said sk-secret-value' });
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0] ?? '', /sk-secret-value/);
  assert.match(lines[0] ?? '', /\[redacted\]/);
});

test('lines of one turn reach stderr in order, also when the process exits in that turn', () => {
  const lines = stderrOf(`
    const log = createLogger('info', []);
    for (let index = 0; index < 5; index++) log.info('line', { index });
    process.exit(0);
  `);
  assert.deepEqual(
    lines.map((line) => (JSON.parse(line) as { index: number }).index),
    [0, 1, 2, 3, 4],
  );
});

test('a long burst is written as it fills, nothing lost', () => {
  const lines = stderrOf(`
    const log = createLogger('info', []);
    for (let index = 0; index < 5000; index++) log.info('line', { index, padding: 'x'.repeat(40) });
  `);
  assert.equal(lines.length, 5000);
  assert.equal((JSON.parse(lines.at(-1) ?? '{}') as { index: number }).index, 4999);
});
