#!/usr/bin/env node
// The `modelgate` command. It runs the compiled CLI in dist/ (built by `npm install`'s prepare
// step, `npm run build`): the same code starts with about 40 MiB less memory than Node's type
// stripping of src/. When dist/ is missing or older than a source file (a checkout being edited),
// it runs src/ directly, so what runs is never stale.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// Before anything loads node:sqlite (Node 22.5+ only, and this code needs 24's type stripping and
// APIs): an older Node gets one line saying what to install, not a stack trace from deep inside.
const requiredNodeMajor = 24;
const runningMajor = Number(process.versions.node.split('.')[0]);
if (!(runningMajor >= requiredNodeMajor)) {
  process.stderr.write(
    `modelgate: Node.js ${requiredNodeMajor} or newer is needed (this is ${process.versions.node}); ` +
      `npm install brings it (the npm package \`node\`), or see https://nodejs.org\n`,
  );
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));

function builtAt() {
  try {
    return statSync(join(root, 'dist', '.built')).mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when some source file (tests aside; Lua scripts included, the build copies them) changed after the last build. */
function newerSource(since) {
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts')) continue;
    if (!entry.name.endsWith('.ts') && !entry.name.endsWith('.lua')) continue;
    if (statSync(join(entry.parentPath, entry.name)).mtimeMs > since) return true;
  }
  return false;
}

/**
 * `serve` runs with V8 heap flags chosen for a gateway (a sidecar on every host, where peak RSS is
 * what operators see): a young generation of at most 2 × 16 MiB (V8's default lets it grow to
 * 64 MiB under load) and an old generation that grows by 50 % between full collections (V8 lets it
 * grow up to 4×). bench/README.md has what each costs and saves. They have to be set before V8
 * starts, so the command re-executes itself once with them (same pid, stdio and environment).
 * `MODELGATE_NODE_FLAGS` replaces them (`none`: V8's defaults); a heap flag of the operator's own
 * (`node --max-semi-space-size=… bin/modelgate.js` or NODE_OPTIONS) keeps them all out.
 *
 * The same re-execution sets `MALLOC_ARENA_MAX=2` (glibc reads it once, at start) unless the
 * operator set it: each thread that allocates (V8's compiler and GC helpers, the ledger's writer
 * thread) otherwise gets its own malloc arena, and the memory each frees stays in it: ~14 MiB of
 * peak RSS under load (bench/README.md, "third session: memory"). Other C libraries ignore it.
 */
/** The Node flags the operator gave (command line and NODE_OPTIONS). */
function given() {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
}

const defaultServeFlags = '--max-semi-space-size=16 --heap-growing-percent=50';
// Node's own bootstrap resolves this file's path before any line here runs: under a deep enough
// directory its path functions get hot and Maglev compiles one, paging ~2 MiB of compiler code
// into the idle process. Only the command line is early enough, and `--no-maglev` there would make
// every later Maglev compile synchronous; empty filters keep them concurrent (both: a function
// Maglev may not compile goes to TurboFan). `endStartUp` restores V8's `*` filters.
const compilerFilters = ['--maglev-filter=~', '--turbo-filter=~'];
const reexecMarker = process.env.MODELGATE_SERVE_REEXEC;
const reexecuted = reexecMarker === '1' || reexecMarker === 'held-tiering';
// This is the re-executed process: the marker goes, so nothing it starts inherits it.
if (reexecuted) delete process.env.MODELGATE_SERVE_REEXEC;
// The filters are this command's own, not the operator's: execArgv (what cluster workers are
// started with, and what start-up-v8.ts reads as the operator's flags) goes on without them.
if (reexecMarker === 'held-tiering')
  for (const flag of compilerFilters) {
    const at = process.execArgv.indexOf(flag);
    if (at >= 0) process.execArgv.splice(at, 1);
  }
const reexecutable = process.argv[2] === 'serve' && typeof process.execve === 'function' && !reexecuted;

function serveFlags() {
  if (!reexecutable) return [];
  if (/--(max-semi-space-size|heap-growing-percent|max-old-space-size)/.test(given())) return [];
  const wanted = process.env.MODELGATE_NODE_FLAGS ?? defaultServeFlags;
  return wanted.trim() === 'none' ? [] : wanted.split(/\s+/).filter((flag) => flag !== '');
}
const flags = serveFlags();
const mallocArenas =
  reexecutable && process.env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : {};
const holdTiering =
  process.argv[2] === 'serve' && !/--(no-)?(opt|turbofan|maglev|sparkplug)\b|--max-opt\b/.test(given());
if (flags.length > 0 || Object.keys(mallocArenas).length > 0) {
  const held = holdTiering ? compilerFilters : [];
  const argv = [process.execPath, ...flags, ...held, ...process.execArgv, ...process.argv.slice(1)];
  const marker = holdTiering ? 'held-tiering' : '1';
  process.execve(process.execPath, argv, { ...process.env, ...mallocArenas, MODELGATE_SERVE_REEXEC: marker });
}

// Start-up allocates in a burst that would grow V8's young generation for good, and its hot loops
// would page in the optimizing compilers for code that runs once (~12 MiB of idle RSS between
// them; Sparkplug's baseline code for it ~0.7 MiB more): all are held back until the server
// listens (src/cli/start-up-v8.ts lets them go then, and makes the same tests of the operator's own
// flags).
if (process.argv[2] === 'serve') {
  if (!/--semi-space-growth-factor/.test(given())) setFlagsFromString('--semi-space-growth-factor=1');
  if (holdTiering) {
    setFlagsFromString('--no-maglev');
    setFlagsFromString('--no-turbofan');
    setFlagsFromString('--no-sparkplug');
  }
}

const built = builtAt();
if (built !== undefined && !newerSource(built)) await import('../dist/cli/main.js');
else await import('../src/cli/main.ts');
