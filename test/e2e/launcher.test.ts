/**
 * The `modelgate` command (bin/modelgate.js) runs the compiled CLI in dist/ when it is built and
 * at least as new as every source file, and src/ otherwise: a stale build never runs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const launcher = fileURLToPath(new URL('../../bin/modelgate.js', import.meta.url));
const tree = mkdtempSync(join(tmpdir(), 'modelgate-launcher-'));
after(() => rmSync(tree, { recursive: true, force: true }));

/** A checkout with a CLI in src/ and one in dist/, each saying which it is. */
function checkout(): void {
  mkdirSync(join(tree, 'bin'), { recursive: true });
  mkdirSync(join(tree, 'src/cli'), { recursive: true });
  mkdirSync(join(tree, 'dist/cli'), { recursive: true });
  copyFileSync(launcher, join(tree, 'bin/modelgate.js'));
  writeFileSync(join(tree, 'package.json'), '{ "type": "module" }');
  writeFileSync(join(tree, 'src/cli/main.ts'), "process.stdout.write('src ' + process.argv[2]);\n");
  writeFileSync(join(tree, 'src/cli/main.test.ts'), '');
  writeFileSync(join(tree, 'dist/cli/main.js'), "process.stdout.write('dist ' + process.argv[2]);\n");
}

const run = (): string =>
  execFileSync(process.execPath, [join(tree, 'bin/modelgate.js'), 'serve']).toString();
const setTime = (path: string, seconds: number): void => utimesSync(join(tree, path), seconds, seconds);

test('no build: the sources run', () => {
  checkout();
  assert.equal(run(), 'src serve');
});

test('a build newer than every source runs; an edited source makes it stale', () => {
  checkout();
  setTime('src/cli/main.ts', 1_000);
  writeFileSync(join(tree, 'dist/.built'), '');
  setTime('dist/.built', 2_000);
  assert.equal(run(), 'dist serve');
  // A test file changing does not make the build stale: tests are not built.
  setTime('src/cli/main.test.ts', 3_000);
  assert.equal(run(), 'dist serve');
  setTime('src/cli/main.ts', 3_000);
  assert.equal(run(), 'src serve');
});
