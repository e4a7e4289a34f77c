/**
 * Child processes of the bench: start a server (optionally pinned to a core with taskset), wait until
 * it answers HTTP, and make sure every child (and scratch directory) goes with the bench, also on
 * error, SIGINT or SIGTERM.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

export interface ServerSpec {
  /** Short label used in messages ("simulator", "bare proxy", "modelgate"). */
  name: string;
  /** Arguments after the node executable (script path first). */
  args: string[];
  env?: Record<string, string>;
  /** Core to pin to with `taskset -c`, ignored when taskset is unavailable. */
  cpu?: number;
  port: number;
  /** GET this path until `isReady(status)`; any HTTP answer counts when omitted. */
  readyPath: string;
  isReady?: (status: number) => boolean;
}

export interface RunningServer {
  name: string;
  pid: number;
  url: string;
  /** The core it is pinned to, or null when unpinned. */
  cpu: number | null;
  child: ChildProcess;
  /** The last few kB of its stdout+stderr, for error messages. */
  output(): string;
}

const children = new Set<ChildProcess>();
const outputLimit = 8192;

let tasksetChecked: boolean | undefined;

/** True when `taskset` exists, works here, and the machine has at least two cores. */
export function canPin(): boolean {
  if (tasksetChecked === undefined) {
    try {
      execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
      tasksetChecked = availableParallelism() >= 2;
    } catch {
      tasksetChecked = false;
    }
  }
  return tasksetChecked;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  if (address === null || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

export async function startServer(spec: ServerSpec, cwd: string): Promise<RunningServer> {
  const pinned = spec.cpu !== undefined && canPin();
  const [command, args] = pinned
    ? ['taskset', ['-c', String(spec.cpu), process.execPath, ...spec.args]]
    : [process.execPath, spec.args];
  // taskset execs node in place, so the pid we get is the server's own (for /proc readings).
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-outputLimit);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  if (child.pid === undefined) throw new Error(`${spec.name}: could not start ${command}`);
  const server: RunningServer = {
    name: spec.name,
    pid: child.pid,
    url: `http://127.0.0.1:${spec.port}`,
    cpu: pinned ? (spec.cpu ?? null) : null,
    child,
    output: () => output,
  };
  await waitUntilAnswering(server, spec);
  return server;
}

async function waitUntilAnswering(
  server: RunningServer,
  spec: ServerSpec,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer';
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(
        `${server.name} exited before answering (${describeExit(server.child)}):\n${server.output()}`,
      );
    }
    try {
      const response = await request(server.url + spec.readyPath, {
        headersTimeout: 2000,
        bodyTimeout: 2000,
      });
      await response.body.dump();
      if (spec.isReady === undefined || spec.isReady(response.statusCode)) return;
      lastProblem = `GET ${spec.readyPath} answered ${response.statusCode}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await sleep(100);
  }
  throw new Error(
    `${server.name} did not become ready in ${timeoutMs} ms (${lastProblem}):\n${server.output()}`,
  );
}

function describeExit(child: ChildProcess): string {
  return child.signalCode === null ? `exit code ${child.exitCode ?? '?'}` : `signal ${child.signalCode}`;
}

/** SIGTERM every child, then SIGKILL whatever is still alive after `graceMs`. */
export async function stopAll(graceMs = 2000): Promise<void> {
  const alive = [...children];
  await Promise.all(
    alive.map(async (child) => {
      const exited = new Promise<void>((resolve) => {
        child.once('exit', () => {
          resolve();
        });
      });
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Last resort when the bench itself exits abruptly: synchronous SIGKILL of every child. */
export function killAllNow(): void {
  for (const child of children) child.kill('SIGKILL');
  removeScratchDirectories();
}

const scratchDirectories = new Set<string>();

/** A temp directory (modelgate's database) removed by `removeScratchDirectories` or `killAllNow`. */
export function makeScratchDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-bench-'));
  scratchDirectories.add(directory);
  return directory;
}

export function removeScratchDirectories(): void {
  for (const directory of scratchDirectories) rmSync(directory, { recursive: true, force: true });
  scratchDirectories.clear();
}

/** Register a child started elsewhere (the load generator) so the same cleanup covers it. */
export function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}
