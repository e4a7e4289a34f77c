/**
 * `serve` starts with the optimizing compilers off (bin/modelgate.js) and `endStartUp` turns them
 * back on: were it not to, every request would run unoptimized for the process's whole life. Each
 * case is a fresh Node that holds the compilers back as the bin does, then runs a hot function
 * and reports whether V8 optimized it (`%GetOptimizationStatus`, bit 4: optimized by any tier).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const startUpV8 = new URL('./start-up-v8.ts', import.meta.url).href;

/** Whether a hot function ends up optimized in a Node given `nodeFlags`, after `endStartUp` or not. */
function hotFunctionOptimized(nodeFlags: string[], callEndStartUp: boolean, dropFilters = false): boolean {
  const program = `
    // What bin/modelgate.js does in the process it re-executed with its compiler filters.
    if (${String(dropFilters)}) process.execArgv = process.execArgv.filter((flag) => !flag.endsWith('-filter=~'));
    import { setFlagsFromString } from 'node:v8';
    const operatorFlags = process.execArgv.join(' ');
    // What bin/modelgate.js does for \`serve\` when the operator gave no tiering flag.
    if (!/maglev|turbofan/.test(operatorFlags)) { setFlagsFromString('--no-maglev'); setFlagsFromString('--no-turbofan'); }
    const { endStartUp } = await import(${JSON.stringify(startUpV8)});
    if (${String(callEndStartUp)}) endStartUp();
    function hot(n) { let sum = 0; for (let i = 0; i < n; i++) sum += (i * 31) % 7; return sum; }
    let optimized = false;
    // Optimizing is concurrent: give the compiler's job turns of the event loop to be installed.
    for (let round = 0; round < 100 && !optimized; round++) {
      for (let call = 0; call < 2000; call++) hot(50);
      await new Promise((resolve) => setTimeout(resolve, 5));
      optimized = (%GetOptimizationStatus(hot) & 16) !== 0;
    }
    process.stdout.write(String(optimized));`;
  // A file, not `-e`: the program's text would be in process.execArgv, read as the operator's flags.
  const script = join(mkdtempSync(join(tmpdir(), 'start-up-v8-')), 'hot.mjs');
  writeFileSync(script, program);
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', ...nodeFlags, script], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout === 'true';
}

test('endStartUp lets V8 optimize again what start-up held back', () => {
  assert.equal(hotFunctionOptimized([], false), false, 'held back, nothing is optimized');
  assert.equal(hotFunctionOptimized([], true), true, 'after endStartUp, hot code is optimized');
});

test("an operator's own tiering flags are left as given", () => {
  assert.equal(hotFunctionOptimized(['--no-maglev', '--no-turbofan'], true), false);
});

test('compilers held back on the command line (the re-executed serve) come back after endStartUp', () => {
  const heldByTheBin = ['--maglev-filter=~', '--turbo-filter=~'];
  assert.equal(hotFunctionOptimized(heldByTheBin, false, true), false, 'held back, nothing is optimized');
  assert.equal(
    hotFunctionOptimized(heldByTheBin, true, true),
    true,
    'after endStartUp, hot code is optimized',
  );
});
