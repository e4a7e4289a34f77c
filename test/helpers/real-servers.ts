/**
 * Real Redis for tests: started on a free loopback port in a temp directory, no persistence, and
 * stopped by its PID. Outside CI a missing `redis-server` skips the tests that need it; with
 * CI=true it fails them (CI installs it: `.ci/run`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RealRedis {
  url: string;
  port: number;
  pid: number;
  /** SIGSTOP: the server keeps its connections but answers nothing. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/** Why the tests needing `binary` cannot run here, or undefined when they can (CI never skips). */
export function missingBinary(binary: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).status === 0;
  if (found) return undefined;
  if (process.env.CI === 'true') throw new Error(`${binary} is required in CI (.ci/run installs it)`);
  return `${binary} is not installed (apt-get install redis-server postgresql)`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });
}

export async function startRedis(): Promise<RealRedis> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory],
    { stdio: 'ignore' },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('redis-server did not start');
  await waitForPort(port, 10_000);
  let frozen = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid,
    freeze() {
      frozen = true;
      process.kill(pid, 'SIGSTOP');
    },
    thaw() {
      frozen = false;
      process.kill(pid, 'SIGCONT');
    },
    async stop() {
      if (frozen) process.kill(pid, 'SIGCONT');
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(pid, 'SIGTERM');
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Resolves once something accepts connections on the port. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
