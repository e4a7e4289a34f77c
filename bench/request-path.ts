/**
 * The whole chat request path's CPU, a base checkout against this one in ONE process: both
 * gateways started here (each its own modules, store file and ledger thread) on the rig's mock
 * upstream, a client process (outside the measure) sending the same request, and rounds alternating
 * base and new with this process's CPU (all its threads) per request — far steadier on a shared
 * machine than two processes measured minutes apart. The base is a checkout's directory.
 *
 *   node bench/request-path.ts --base /tmp/base-checkout [--model A-3|B-4] [--requests 4000] [--rounds 6]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    model: { type: 'string', default: 'A-3' },
    requests: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '6' },
    concurrency: { type: 'string', default: '16' },
  },
});
if (values.base === undefined) throw new Error('--base <checkout directory> is required');
const requests = Number(values.requests);
const rig = fileURLToPath(new URL('../../shared/bench-rig/', import.meta.url));
const here = fileURLToPath(new URL('..', import.meta.url));
const key = 'sk-bench-client-key-0000000000';
const mockPort = 19_000 + (process.pid % 1000);
const scratch = mkdtempSync(join(tmpdir(), 'request-path-'));

const mock = spawn(process.execPath, [join(rig, 'mock-upstream.mjs')], {
  env: { ...process.env, MOCK_PORT: String(mockPort) },
  stdio: 'ignore',
});
await sleep(500);

interface Gateway {
  url: string;
  close(): Promise<void>;
}

async function start(checkout: string, name: string): Promise<Gateway> {
  const source = join(resolve(checkout), 'src');
  const { loadConfig } = (await import(join(source, 'config/load-config.ts'))) as {
    loadConfig: (environment: Record<string, string>) => unknown;
  };
  const { createLogger } = (await import(join(source, 'log/logger.ts'))) as {
    createLogger: (level: string, secrets: string[], write: (line: string) => void) => unknown;
  };
  const { startGateway } = (await import(join(source, 'server/start-gateway.ts'))) as {
    startGateway: (config: unknown, logger: unknown) => Promise<Gateway>;
  };
  const upstream = `http://127.0.0.1:${mockPort}`;
  const config = loadConfig({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    MODELGATE_KEYS: key,
    MODELGATE_DB: join(scratch, `${name}.db`),
    MODELGATE_CONFIG: join(rig, 'bench-limits.yaml'),
    LOG_LEVEL: 'info',
    ALPHA_BASE_URL: upstream,
    ALPHA_API_KEY: 'sk-mock',
    BETA_BASE_URL: upstream,
    BETA_API_KEY: 'sk-ant-mock',
  });
  // Every log line built and redacted as in production; written nowhere (stderr is not the measure).
  return startGateway(
    config,
    createLogger('info', [key, 'sk-mock', 'sk-ant-mock'], () => undefined),
  );
}

const body = JSON.stringify({
  model: values.model,
  messages: [
    { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
    {
      role: 'user',
      content:
        'Summarise in one sentence why HTTP keep-alive matters for API gateways that proxy LLM requests.',
    },
  ],
  max_tokens: 64,
  temperature: 0.2,
});
const clientScript = `
const [url, total, concurrency, body, key] = process.argv.slice(1);
let left = Number(total);
async function loop() {
  while (left-- > 0) {
    const answer = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
    await answer.arrayBuffer();
    if (answer.status !== 200) { console.error('status', answer.status); process.exit(1); }
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, loop));
`;

function drive(gateway: Gateway, count: number): Promise<void> {
  return new Promise((done, fail) => {
    const client: ChildProcess = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        clientScript,
        `${gateway.url}/v1/chat/completions`,
        String(count),
        values.concurrency,
        body,
        key,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    client.on('exit', (code) => (code === 0 ? done() : fail(new Error(`client exited ${code}`))));
  });
}

/** This process's CPU (every thread: the ledger's too) per request of one round. */
async function round(gateway: Gateway): Promise<number> {
  const before = process.cpuUsage();
  await drive(gateway, requests);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

const targets = [
  { name: 'base', gateway: await start(values.base, 'base'), figures: [] as number[] },
  { name: 'new', gateway: await start(here, 'new'), figures: [] as number[] },
];
for (const target of targets) await drive(target.gateway, 2000); // warm up: compiled, caches full
for (let index = 0; index < Number(values.rounds); index++)
  for (const target of index % 2 === 0 ? targets : [...targets].reverse())
    target.figures.push(await round(target.gateway));
for (const target of targets)
  console.log(
    `${target.name.padEnd(5)} ${values.model}: ${median(target.figures).toFixed(1)} µs/request [${target.figures.map((figure) => figure.toFixed(1)).join(' ')}]`,
  );
for (const target of targets) await target.gateway.close();
mock.kill();
rmSync(scratch, { recursive: true, force: true });
