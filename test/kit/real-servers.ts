/**
 * Real Redis and PostgreSQL for tests: each started on a free loopback port in a temp directory,
 * no persistence (no fsync), and stopped by its PID. Outside CI a missing server skips the tests
 * that need it; with CI=true it fails them (CI installs both: `.ci/run`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

export interface RealPostgres {
  /** `postgres://postgres@127.0.0.1:P/postgres` (trust authentication on loopback: no password). */
  url: string;
  port: number;
  /** The server's PID (from `postmaster.pid`); changes after `start()`. */
  readonly pid: number;
  /** Stops the server (fast shutdown, by PID) and waits until it is gone; the data stays. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Debian installs PostgreSQL's server programs under /usr/lib/postgresql/<version>/bin (not on the
 * PATH): the newest version's directory, or undefined when there is none.
 */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(join(root, entry, 'bin', 'initdb')))
    .sort((left, right) => Number(right) - Number(left));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Why the tests needing PostgreSQL cannot run here, or undefined when they can (CI never skips). */
export function missingPostgres(): string | undefined {
  if (postgresBin() !== undefined) return undefined;
  if (process.env.CI === 'true') throw new Error('PostgreSQL is required in CI (.ci/run installs it)');
  return 'PostgreSQL is not installed (apt-get install postgresql)';
}

/**
 * A PostgreSQL server of its own: `initdb` in a temp directory and `pg_ctl start` on a free
 * loopback port (no fsync: test data). PostgreSQL refuses to run as root, so as root (CI) both run
 * as the `postgres` user through `runuser`, in a directory that user owns.
 */
export async function startPostgres(): Promise<RealPostgres> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-pg-'));
  const data = join(directory, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(directory, Number(ids.stdout.trim()), Number(group.stdout.trim()));
  }
  const run = (program: string, args: readonly string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, program);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : [...args];
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: directory });
    if (result.status !== 0)
      throw new Error(`${program} failed (${String(result.status)}): ${result.stderr}${result.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  let pid = 0;
  const start = async (): Promise<void> => {
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(directory, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${directory} -c fsync=off -c full_page_writes=off`,
      'start',
    ]);
    pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    await waitForPort(port, 30_000);
  };
  const pause = async (): Promise<void> => {
    if (pid === 0) return;
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 30_000;
    while (alive(pid)) {
      if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    pid = 0;
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    get pid() {
      return pid;
    },
    pause,
    start,
    async stop() {
      await pause();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
