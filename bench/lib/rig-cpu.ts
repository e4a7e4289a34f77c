/**
 * The shared rig's way of measuring CPU per request, for the scripts that compare set-ups rather
 * than checkouts (`scale-cost.ts`, `work-scaling.ts`): the rig's plain mock and wrk (one thread) on
 * CPU 0, the measured processes on CPU 1, CPU read from /proc for every process involved (a
 * gateway's primary and its workers, Redis) and divided by the requests wrk counted.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuMicros } from './proc-stats.ts';
import { serveEnvironment } from './serve-environment.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The shared rig: `BENCH_RIG`, else `../shared/bench-rig` beside the checkout (or beside its worktree folder). */
export const rig =
  process.env['BENCH_RIG'] ??
  [join(repoRoot, '..', 'shared', 'bench-rig'), join(repoRoot, '..', '..', 'shared', 'bench-rig')].find(
    (path) => existsSync(join(path, 'mock-upstream.mjs')),
  ) ??
  join(repoRoot, '..', 'shared', 'bench-rig');
export const clientKey = 'sk-bench-client-key-0000000000';
export const loadCore = 0;
export const measuredCore = 1;

const children: ChildProcess[] = [];
const scratchFiles: string[] = [];
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  for (const file of scratchFiles) rmSync(file, { force: true, recursive: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** A process pinned to `cpu` with taskset (which execs it, so the pid is its own). */
export function pinned(
  cpu: number | string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  const child = spawn('taskset', ['-c', String(cpu), command, ...args], {
    env: { ...process.env, ...env },
    cwd: repoRoot,
    // BENCH_DEBUG=1 shows the processes' own output (a gateway that would not start says why).
    stdio: process.env['BENCH_DEBUG'] === '1' ? 'inherit' : 'ignore',
  });
  children.push(child);
  return child;
}

export function pinExisting(cpu: number | string, pid: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

export function startMock(port: number, chunks: number): ChildProcess {
  return pinned(loadCore, process.execPath, [join(rig, 'mock-upstream.mjs')], {
    MOCK_PORT: String(port),
    MOCK_CHUNKS: String(chunks),
    MOCK_DELAY_MS: '0',
  });
}

/** This project's bare proxy (`bare-proxy.ts`: the rig's design, and it needs no install in the rig). */
export function startBare(port: number, upstream: string): ChildProcess {
  return pinned(
    measuredCore,
    process.execPath,
    [join(repoRoot, 'bench', 'bare-proxy.ts'), '--port', String(port), '--upstream', upstream],
    { NODE_ENV: 'production' },
  );
}

/** `modelgate serve` from this checkout, every family pointed at `upstream`, the rig's limits. */
export function startGateway(
  port: number,
  upstream: string,
  database: string,
  extraEnv: NodeJS.ProcessEnv = {},
  args: string[] = [],
  cores: number | string = measuredCore,
): ChildProcess {
  for (const suffix of ['', '-wal', '-shm']) scratchFiles.push(database + suffix);
  return pinned(cores, process.execPath, [join(repoRoot, 'bin/modelgate.js'), 'serve', ...args], {
    ...serveEnvironment({ port, database, upstream, rig, clientKey }),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  });
}

export function scratchPath(name: string): string {
  const path = join(tmpdir(), `modelgate-${name}-${process.pid}`);
  scratchFiles.push(path);
  return path;
}

/** A wrk script posting `body` with `authorization`. */
export function wrkScript(name: string, body: string, authorization: string): string {
  if (body.includes(']]')) throw new Error('the body may not contain "]]" (a Lua long string)');
  const path = scratchPath(`${name}.lua`);
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = [[${body}]]\nwrk.headers["content-type"] = "application/json"\nwrk.headers["authorization"] = "${authorization}"\n` +
      // BENCH_DEBUG=1: print the first answer that is not a 200 (wrk only counts them).
      (process.env['BENCH_DEBUG'] === '1'
        ? `response = function(status, headers, body) if status ~= 200 and not shown then shown = true print(status, body) end end\n`
        : ''),
  );
  return path;
}

export interface WrkRun {
  requests: number;
  requestsPerSecond: number;
  /** Answers that were not 2xx/3xx, plus socket errors. */
  failed: number;
  output: string;
}

export function wrk(url: string, script: string, connections: number, seconds: number): WrkRun {
  const output = execFileSync(
    'taskset',
    ['-c', String(loadCore), 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, url],
    { maxBuffer: 1 << 22 },
  ).toString();
  return {
    requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    failed:
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0) +
      [...(/Socket errors: (.*)/.exec(output)?.[1] ?? '').matchAll(/\d+/g)].reduce(
        (sum, [n]) => sum + Number(n),
        0,
      ),
    output,
  };
}

/** The pid and its descendants (a gateway's primary and its workers), from /proc. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    const parent = tree[index] ?? 0;
    try {
      for (const task of readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8')
        .trim()
        .split(/\s+/)) {
        if (task !== '') tree.push(Number(task));
      }
    } catch {
      // Gone meanwhile: it spends nothing more.
    }
  }
  return tree;
}

/** Measure one wrk run: CPU of each of `pids` per answered request, and the sum. */
export function measureCpu(
  pids: readonly number[],
  url: string,
  script: string,
  connections: number,
  seconds: number,
): {
  cpuMicrosPerRequest: number;
  perProcess: Map<number, number>;
  requestsPerSecond: number;
  requests: number;
} {
  const before = pids.map((pid) => cpuMicros(pid) ?? 0);
  const run = wrk(url, script, connections, seconds);
  const perProcess = new Map(
    pids.map((pid, index) => [pid, ((cpuMicros(pid) ?? 0) - (before[index] ?? 0)) / run.requests]),
  );
  // A stray failure (a loaded VM) is reported, not fatal; more than 1 % would skew the figure.
  if (run.requests === 0 || run.failed > run.requests / 100)
    throw new Error(`${url}: failed answers\n${run.output}`);
  if (run.failed > 0) process.stderr.write(`${url}: ${run.failed} failed answers of ${run.requests}\n`);
  const total = [...perProcess.values()].reduce((sum, value) => sum + value, 0);
  return {
    cpuMicrosPerRequest: total,
    perProcess,
    requestsPerSecond: run.requestsPerSecond,
    requests: run.requests,
  };
}

export async function ready(url: string, body: string, authorization: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body,
      });
      await response.arrayBuffer();
      if (response.status === 200) return;
      throw new Error(`${url} answered ${response.status}: ${await response.text().catch(() => '')}`);
    } catch (error) {
      if (error instanceof Error && error.message.includes('answered')) throw error;
      await sleep(200);
    }
  }
  throw new Error(`${url} never answered`);
}

/** Bytes of one answer's body (to put CPU beside bytes). */
export async function answerBytes(url: string, body: string, authorization: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body,
  });
  return (await response.arrayBuffer()).byteLength;
}
