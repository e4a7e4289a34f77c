/**
 * `npm test` runs two tiers, `test:fast` (unit tests) and `test:slow` (end-to-end, hostile,
 * property, golden, chaos, browser). A test folder named by neither would silently never run.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);

test('every folder of tests under test/ (but scale, its own command) is in the fast or the slow tier', () => {
  const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const tiers = `${scripts['test:fast'] ?? ''} ${scripts['test:slow'] ?? ''}`;
  assert.match(scripts.test ?? '', /test:fast.*test:slow/);
  for (const entry of readdirSync(new URL('test/', root), { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'scale') continue;
    const files = readdirSync(new URL(`test/${entry.name}/`, root), { recursive: true });
    if (!files.some((file) => String(file).endsWith('.test.ts'))) continue;
    const named = tiers.includes(`test/${entry.name}/`) || new RegExp(`[{,]${entry.name}[,}]`).test(tiers);
    assert.ok(named, `test/${entry.name} is in neither test:fast nor test:slow`);
  }
});
