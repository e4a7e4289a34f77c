/**
 * The `modelgate` command (bin/modelgate.js) runs the compiled CLI in dist/ when it is built and
 * at least as new as every source file, and src/ otherwise: a stale build never runs. `serve`
 * re-executes itself once with the gateway's V8 heap flags.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
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

test('an edited Lua script makes the build stale too (the build copies it into dist/)', () => {
  checkout();
  setTime('src/cli/main.ts', 1_000);
  writeFileSync(join(tree, 'src/cli/script.lua'), 'return 1\n');
  setTime('src/cli/script.lua', 1_000);
  writeFileSync(join(tree, 'dist/.built'), '');
  setTime('dist/.built', 2_000);
  assert.equal(run(), 'dist serve');
  setTime('src/cli/script.lua', 3_000);
  assert.equal(run(), 'src serve');
});

/** What the CLI saw: its Node flags, its pid, whether the re-exec marker leaked. */
interface Started {
  pid: number;
  execArgv: string[];
  marker: boolean;
  mallocArenas: string | undefined;
}

function start(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  nodeFlags: string[] = [],
): Started & { spawned: number } {
  checkout();
  writeFileSync(
    join(tree, 'src/cli/main.ts'),
    "process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, marker: 'MODELGATE_SERVE_REEXEC' in process.env, mallocArenas: process.env.MALLOC_ARENA_MAX }));\n",
  );
  const {
    NODE_OPTIONS: _options,
    MODELGATE_NODE_FLAGS: _flags,
    MALLOC_ARENA_MAX: _arenas,
    ...inherited
  } = process.env;
  const child = spawnSync(process.execPath, [...nodeFlags, join(tree, 'bin/modelgate.js'), ...args], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  // A signal (status null) is named: the one failure seen so far, under heavy load, said nothing.
  assert.equal(
    child.status,
    0,
    `signal ${child.signal ?? 'none'}, error ${child.error?.message ?? 'none'}: ${child.stderr}`,
  );
  return { ...(JSON.parse(child.stdout) as Started), spawned: child.pid };
}

test('serve runs with the gateway heap flags, in the process that was started', () => {
  const started = start(['serve']);
  assert.deepEqual(started.execArgv, ['--max-semi-space-size=16', '--heap-growing-percent=50']);
  // Re-executed in place (execve): the pid a supervisor knows is the server's.
  assert.equal(started.pid, started.spawned);
  assert.equal(started.marker, false);
  // Other commands start as they are.
  assert.deepEqual(start(['keys']).execArgv, []);
});

test('MODELGATE_NODE_FLAGS replaces the heap flags; none keeps V8 defaults; an own heap flag wins', () => {
  assert.deepEqual(start(['serve'], { MODELGATE_NODE_FLAGS: 'none' }).execArgv, []);
  assert.deepEqual(start(['serve'], { MODELGATE_NODE_FLAGS: ' --max-semi-space-size=8 ' }).execArgv, [
    '--max-semi-space-size=8',
  ]);
  assert.deepEqual(start(['serve'], {}, ['--max-semi-space-size=4']).execArgv, ['--max-semi-space-size=4']);
  assert.deepEqual(start(['serve'], { NODE_OPTIONS: '--max-old-space-size=512' }).execArgv, []);
});

test('serve runs with two malloc arenas unless the operator chose a number; other commands as started', () => {
  const started = start(['serve']);
  assert.equal(started.mallocArenas, '2');
  assert.equal(started.pid, started.spawned);
  assert.equal(start(['serve'], { MODELGATE_NODE_FLAGS: 'none' }).mallocArenas, '2');
  assert.equal(start(['serve'], {}, ['--max-semi-space-size=4']).mallocArenas, '2');
  assert.equal(start(['serve'], { MALLOC_ARENA_MAX: '8' }).mallocArenas, '8');
  assert.equal(start(['keys']).mallocArenas, undefined);
});
