import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger, redact, secretScrubber } from './logger.ts';

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

test('the scrubber redacts exactly what redact does, secrets with pattern characters taken literally', () => {
  const secrets = ['sk-a.b*c', 'key(1)|x', '[abc]+?', 'a$^\\d{2}', 'sk-mock', 'sk-mock-longer', 'ock-'];
  const scrub = secretScrubber(secrets);
  const lines = [
    'nothing here: sk-aXbYc key1x abc a-d22 sk-moc',
    'one: {"detail":"sk-a.b*c"}',
    'each: sk-a.b*c key(1)|x [abc]+? a$^\\d{2} sk-mock sk-mock-longer',
    'overlapping: sk-mock-longer then sk-mock-and sk-mock-',
    'pattern look-alikes only: sk-aab*c keyy1)|x abc a\\d{2}',
    '',
  ];
  for (const line of lines) assert.equal(scrub(line), redact(line, secrets), line);
  assert.equal(scrub('x sk-a.b*c y'), 'x [redacted] y');
  assert.equal(scrub('x sk-aXb*c y'), 'x sk-aXb*c y');
  assert.equal(secretScrubber([])('sk-mock'), 'sk-mock');
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

test('a line is one JSON object: time, level and message first, then the fields; a field may replace them', () => {
  const lines: string[] = [];
  const log = createLogger('debug', [], (line) => lines.push(line));
  log.info('plain');
  log.warn('with "quotes"\nand a newline', { status: 503, path: '/v1/x', skipped: undefined });
  log.error('empty fields', {});
  log.debug('renamed', { level: 'custom', extra: [1, 2] });
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const entry of parsed) assert.match(String(entry.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(
    parsed.map(({ time: _time, ...rest }) => rest),
    [
      { level: 'info', message: 'plain' },
      { level: 'warn', message: 'with "quotes"\nand a newline', status: 503, path: '/v1/x' },
      { level: 'error', message: 'empty fields' },
      { level: 'custom', message: 'renamed', extra: [1, 2] },
    ],
  );
  assert.ok(lines.every((line) => !line.includes('\n')));
  assert.deepEqual(Object.keys(parsed[1] ?? {}).slice(0, 3), ['time', 'level', 'message']);
});
