/**
 * JS heap bytes a chat request allocates on the gateway's main thread, and where: one checkout's
 * gateway started in this process on the rig's mock upstream, a client process (outside the
 * measure) sending the rig's request, and V8's sampling heap profiler counting every allocation,
 * kept or already collected. Allocation per request does not depend on how busy the machine is, so
 * two checkouts measured minutes apart compare fairly (unlike CPU). The ledger's own thread is
 * another isolate and not counted. Last, one more pass counts the promises made per request.
 *
 *   node bench/request-alloc.ts [--checkout .] [--model A-3|B-4] [--stream] [--requests 4000] [--top 25]
 */
import { createHook } from 'node:async_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    checkout: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    model: { type: 'string', default: 'A-3' },
    stream: { type: 'boolean', default: false },
    requests: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '3' },
    interval: { type: 'string', default: '256' },
    top: { type: 'string', default: '25' },
  },
});
const requests = Number(values.requests);
const rig = fileURLToPath(new URL('../../shared/bench-rig/', import.meta.url));
const key = 'sk-bench-client-key-0000000000';
const mockPort = 19_000 + (process.pid % 1000);
const scratch = mkdtempSync(join(tmpdir(), 'request-alloc-'));

const mock = spawn(process.execPath, [join(rig, 'mock-upstream.mjs')], {
  env: { ...process.env, MOCK_PORT: String(mockPort) },
  stdio: 'ignore',
});
await sleep(500);

interface Gateway {
  url: string;
  close(): Promise<void>;
}

async function start(checkout: string): Promise<Gateway> {
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
    MODELGATE_DB: join(scratch, 'gateway.db'),
    MODELGATE_CONFIG: join(rig, 'bench-limits.yaml'),
    LOG_LEVEL: 'info',
    ALPHA_BASE_URL: upstream,
    ALPHA_API_KEY: 'sk-mock',
    BETA_BASE_URL: upstream,
    BETA_API_KEY: 'sk-ant-mock',
  });
  // Every log line built and redacted as in production; written nowhere.
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
  ...(values.stream ? { stream: true } : {}),
});
const clientScript = `
const [url, total, body, key] = process.argv.slice(1);
let left = Number(total);
async function loop() {
  while (left-- > 0) {
    const answer = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
    await answer.arrayBuffer();
    if (answer.status !== 200) { console.error('status', answer.status); process.exit(1); }
  }
}
await Promise.all(Array.from({ length: 16 }, loop));
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
        body,
        key,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    client.on('exit', (code) => (code === 0 ? done() : fail(new Error(`client exited ${code}`))));
  });
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes by allocation site (function, file:line), summed over the whole profile. */
function bySite(root: ProfileNode, sites: Map<string, number>, caller = ''): number {
  const { functionName, url, lineNumber } = root.callFrame;
  const file = url.replace(/^.*\/(src|node_modules)\//, '$1/');
  const here = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  // A builtin or Node's own code (Map, Promise, delete, Buffer...) is named with its caller.
  const site = url === '' || url.startsWith('node:') ? `${here} <- ${caller}` : here;
  if (root.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + root.selfSize);
  let total = root.selfSize;
  for (const child of root.children) total += bySite(child, sites, here);
  return total;
}

const gateway = await start(values.checkout);
await drive(gateway, 2000); // warm up: compiled, caches full
const session = new Session();
session.connect();
const perRound: number[] = [];
const sites = new Map<string, number>();
for (let index = 0; index < Number(values.rounds); index++) {
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(values.interval),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await drive(gateway, requests);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
    profile: { head: ProfileNode };
  };
  perRound.push(bySite(profile.head, sites) / requests);
}
const label = `${values.model}${values.stream ? ' stream' : ''}`;
console.log(`${label}: ${perRound.map((bytes) => (bytes / 1024).toFixed(1)).join(' ')} KiB/request (rounds)`);
const rounds = Number(values.rounds) * requests;
for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${(bytes / rounds).toFixed(0).padStart(7)} B  ${site}`);
session.disconnect();
// Promises made on this thread per request (async functions' own included): one counted pass.
let promises = 0;
const counting = createHook({
  init(_id, type) {
    if (type === 'PROMISE') promises++;
  },
});
counting.enable();
await drive(gateway, requests);
counting.disable();
console.log(`${(promises / requests).toFixed(1)} promises/request`);
await gateway.close();
mock.kill();
rmSync(scratch, { recursive: true, force: true });
