/**
 * Gateway instances as an operator runs them, for the multi-instance scenarios: `modelgate serve`
 * processes (optionally `--workers N`) started from the source with a clean environment, each
 * announcing its URL; their logs kept; stopped with SIGTERM (or killed by the scenario itself).
 * Also a steady load over a changing set of instances that records every answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpAnswer } from '../kit/e2e.ts';

const root = join(import.meta.dirname, '../..');

export interface Instance {
  url: string;
  child: ChildProcess;
  /** The process started (the primary with workers). */
  pid: number;
  /** Its log lines so far (JSON lines on stderr, at the level the scenario set), without the per-request lines. */
  log(): string;
  /** Resolves when the process started has exited. */
  exited: Promise<void>;
}

/** The longest a log is kept in memory (a scenario reads a few lines, never megabytes). */
const maxLogChars = 1_000_000;

/**
 * Starts `modelgate serve` with exactly `environment` (plus PATH, loopback, port 0) and resolves
 * once it says where it listens (with workers: once the first worker listens).
 */
export async function startInstance(
  environment: Record<string, string>,
  options: { workers?: number } = {},
): Promise<Instance> {
  const args = [join(root, 'src/cli/main.ts'), 'serve'];
  if (options.workers !== undefined) args.push('--workers', String(options.workers));
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let log = '';
  child.stdout.setEncoding('utf8');
  let partial = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines)
      if (!line.includes('"message":"request"') && log.length < maxLogChars) log += `${line}\n`;
  });
  const exited = once(child, 'exit').then(() => undefined);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${output}${log}`)), 120_000);
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited ${String(child.exitCode)}: ${output}${log}`));
    });
  });
  return { url, child, pid: child.pid ?? 0, log: () => log, exited };
}

/**
 * Starts `count` instances at once, as an operator's service manager does. If any fails to
 * start, the others are stopped before the error is thrown (none is left running to hold up the
 * test run).
 */
export async function startInstances(
  count: number,
  start: (index: number) => Promise<Instance>,
): Promise<Instance[]> {
  const results = await Promise.allSettled(Array.from({ length: count }, (_, index) => start(index)));
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed === undefined) return started;
  await stopInstances(started);
  throw failed.reason;
}

/** SIGTERM to every instance still running, and waits for each to exit. */
export async function stopInstances(instances: readonly Instance[]): Promise<void> {
  await Promise.all(
    instances.map(async ({ child, exited }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    }),
  );
}

/**
 * Waits until every process of every instance accepts a key just created through one of them
 * (pushed over Redis, or read by the 250 ms recheck: within a second). Asks `GET /v1/models`,
 * which costs the key no budget and no rate limit, several at once per instance so that the
 * connections, and with them the requests, reach each of its workers.
 */
export async function waitForKey(
  instances: readonly Instance[],
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(
      instances.flatMap((instance) =>
        Array.from({ length: 8 }, () =>
          fetch(`${instance.url}/v1/models`, { headers }).then(async (answer) => {
            await answer.arrayBuffer();
            return answer.status;
          }),
        ),
      ),
    );
    if (statuses.every((status) => status === 200)) return;
    if (Date.now() > deadline) throw new Error(`the key is not known everywhere: ${statuses.join(' ')}`);
    await sleep(100);
  }
}

/** The PIDs of a process's children (Linux: every /proc/<pid>/stat whose parent is `pid`). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process ended while the directory was read.
    }
  }
  return children;
}

/** Whether a process runs (a zombie, exited and not yet reaped by its new parent, does not). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** One request of the load and what became of it. */
export interface LoadAnswer {
  /** Index of the instance it was sent to. */
  instance: number;
  status: number;
  /** `x-request-id`, when an answer came. */
  requestId: string | undefined;
  headers: Headers | undefined;
  /** The error when no answer came (connection refused or cut). */
  error: string | undefined;
  sentAt: number;
  answeredAt: number;
}

export interface SteadyLoad {
  answers: LoadAnswer[];
  /** The instances the next requests go to (a load balancer's pool: change it at will). */
  targets: number[];
  stop(): Promise<void>;
}

/**
 * `clients` loops, each sending one request at a time, round-robin over `targets` (indexes into
 * `instances`), until stopped. `send` makes the request (a POST through the e2e helper).
 */
export function steadyLoad(
  instances: () => readonly Instance[],
  clients: number,
  send: (url: string) => Promise<HttpAnswer>,
): SteadyLoad {
  const answers: LoadAnswer[] = [];
  let running = true;
  let sent = 0;
  let loops: Promise<void>[] = [];
  const load: SteadyLoad = {
    answers,
    targets: instances().map((_, index) => index),
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
  const loop = async (): Promise<void> => {
    while (running) {
      const instance = load.targets[sent++ % load.targets.length] ?? 0;
      const url = instances()[instance]?.url ?? '';
      const sentAt = Date.now();
      try {
        const answer = await send(url);
        answers.push({
          instance,
          status: answer.status,
          requestId: answer.headers.get('x-request-id') ?? undefined,
          headers: answer.headers,
          error: undefined,
          sentAt,
          answeredAt: Date.now(),
        });
      } catch (error) {
        answers.push({
          instance,
          status: 0,
          requestId: undefined,
          headers: undefined,
          error: error instanceof Error ? `${error.message} ${String(error.cause)}` : String(error),
          sentAt,
          answeredAt: Date.now(),
        });
      }
    }
  };
  loops = Array.from({ length: clients }, () => loop());
  return load;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
