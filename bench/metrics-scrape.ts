/**
 * `npm run bench:metrics`: what a `/metrics` scrape costs with `serve --workers 2` (the primary
 * collects and merges every worker's snapshot) against one process, on this machine. Starts a
 * throw-away redis-server (the workers need it), both gateways, sends each the same traffic, then
 * scrapes them interleaved, each scrape on a new connection (so it lands on either worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const root = join(import.meta.dirname, '..');
const clientKey = 'mg-bench-metrics-client-0123456789';
const token = 'mg-bench-metrics-token-0123456789';
const scrapes = Number(process.env.SCRAPES ?? 100);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function exchange(url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const outgoing = request(url, { method, agent: false, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function startGateway(directory: string, environment: Record<string, string>, args: string[]) {
  const child = spawn(process.execPath, [join(root, 'src/cli/main.ts'), 'serve', ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      MODELGATE_DB: join(directory, `${args.length}.db`),
      MODELGATE_KEYS: clientKey,
      MODELGATE_UNLIMITED_KEYS: 'static-1',
      MODELGATE_METRICS_TOKEN: token,
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (found?.[1] !== undefined) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${output}`)));
  });
  return { url, child };
}

const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

const directory = mkdtempSync(join(tmpdir(), 'modelgate-bench-metrics-'));
const redisPort = await freePort();
const redis = spawn(
  'redis-server',
  ['--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', directory],
  {
    stdio: 'ignore',
  },
);
await delay(300);
const targets = [
  { name: 'one process', ...(await startGateway(directory, {}, [])) },
  {
    name: '--workers 2',
    ...(await startGateway(directory, { MODELGATE_REDIS_URL: `redis://127.0.0.1:${redisPort}` }, [
      '--workers',
      '2',
    ])),
  },
];
try {
  // Both workers listening (the primary announces the first): wait until a scrape counts two.
  const workers = targets[1];
  for (let tries = 0; ; tries++) {
    const text = await new Promise<string>((resolve, reject) => {
      request(
        `${workers?.url ?? ''}/metrics`,
        { agent: false, headers: { authorization: `Bearer ${token}` } },
        (response) => {
          let received = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
          response.on('end', () => resolve(received));
        },
      )
        .on('error', reject)
        .end();
    });
    if (text.includes('modelgate_workers{state="answered"} 2')) break;
    if (tries > 300) throw new Error('the second worker did not start');
    await delay(100);
  }
  const body = JSON.stringify({ model: 'A-1', messages: [{ role: 'user', content: 'Hello' }] });
  for (const target of targets)
    for (let index = 0; index < 200; index++)
      await exchange(
        `${target.url}/v1/chat/completions`,
        'POST',
        {
          authorization: `Bearer ${clientKey}`,
          'content-type': 'application/json',
        },
        body,
      );
  const times = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  const sizes = new Map<string, number>();
  for (let round = 0; round < scrapes; round++)
    for (const target of targets) {
      const started = performance.now();
      const answer = await exchange(`${target.url}/metrics`, 'GET', { authorization: `Bearer ${token}` });
      times.get(target.name)?.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`${target.name}: ${answer.status}`);
      sizes.set(target.name, answer.bytes);
    }
  for (const [name, list] of times) {
    list.sort((a, b) => a - b);
    const at = (share: number): string => (list[Math.floor(share * (list.length - 1))] ?? 0).toFixed(1);
    process.stdout.write(
      `${name.padEnd(12)} scrape median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms; ${sizes.get(name) ?? 0} bytes\n`,
    );
  }
} finally {
  for (const target of targets) await stop(target.child);
  redis.kill('SIGTERM');
  rmSync(directory, { recursive: true, force: true });
}
