/**
 * `npm run bench:scale` (issue 25, target 3): what sharing costs. CPU per request summed over every
 * process involved — `serve --workers 2` on Redis (the primary, both workers and redis-server, limits
 * exact: every admission is a Redis script) against one process on the embedded store — on the
 * rig's mock and wrk. The gateways and Redis share CPU 1 (wrk and the mock CPU 0), so the figure is
 * the work done, not what two cores would give; reps alternate, order reversed every other rep.
 * 1,000,000 / (CPU µs per request) is then the throughput to expect per core on a larger machine.
 *
 *   node bench/scale-cost.ts [--seconds 4] [--connections 32] [--reps 4] [--cores 1|2|spread]
 *                            [--rates 1000,2000] [--threads] [scenario...]
 *
 * --rates: instead of closed-loop wrk (which saturates the gateways' core, where two workers
 * time-sharing it batch less per event-loop turn than one process does), each set-up at these
 * fixed request rates (open loop), so all do the same requests in the same time. --threads: where
 * each set-up's CPU goes, per process and thread, with context switches (`lib/thread-stats.ts`).
 * --cores spread: each worker pinned to its own core, where the machine has cores beyond wrk's.
 *
 * scenario: chat-openai (A-3) | chat-anthropic (B-4) | stream-openai (20 chunks); default all three.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from '../test/kit/real-servers.ts';
import {
  clientKey,
  measureCpu,
  measuredCore,
  pinExisting,
  processTree,
  ready,
  rig,
  scratchPath,
  startGateway,
  startMock,
  wrk,
  wrkScript,
} from './lib/rig-cpu.ts';
import { measureFixedRate } from './lib/scale-open-loop.ts';
import { median } from './lib/stats.ts';
import { countSyscalls } from './lib/syscall-counts.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatShares, sampleThreads, threadShares, type ThreadShare } from './lib/thread-stats.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '32' },
    reps: { type: 'string', default: '4' },
    // 1: the gateways and Redis share CPU 1 (the rig's pinning); 2: they may use both cores.
    // spread: as 1, then each worker pinned to a core of its own among those wrk does not use.
    cores: { type: 'string', default: '1' },
    rates: { type: 'string' },
    threads: { type: 'boolean', default: false },
    syscalls: { type: 'boolean', default: false },
  },
});
const scenarios = positionals.length > 0 ? positionals : ['chat-openai', 'chat-anthropic', 'stream-openai'];
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const reps = Number(values.reps);
const rates = values.rates === undefined ? [] : values.rates.split(',').map(Number);

const mockPort = 9431;
const upstream = `http://127.0.0.1:${mockPort}`;
startMock(mockPort, 20);
const redis = await startRedis();
const cores = values.cores === '2' ? '0-1' : measuredCore;
pinExisting(cores, redis.pid);

const setups = [
  {
    name: 'one process, embedded store',
    port: 9432,
    redisPid: undefined as number | undefined,
    workers: false,
  },
  { name: 'one process on Redis', port: 9434, redisPid: redis.pid as number | undefined, workers: false },
  { name: '--workers 2 on Redis', port: 9433, redisPid: redis.pid as number | undefined, workers: true },
];
// The rig's limits (so high nothing is refused, every admission still a Redis script), and a Redis
// command timeout for a shared, loaded VM: at the default 50 ms a busy minute opens the breaker and
// the bench would measure 503s. (Exactness does not depend on it: a late answer is a refusal.)
const config = scratchPath('scale-config.yaml');
writeFileSync(
  config,
  readFileSync(join(rig, 'bench-limits.yaml'), 'utf8') + 'redis:\n  commandTimeoutMs: 2000\n',
);
const gateways = setups.map((setup) => {
  const database = scratchPath(`scale-${setup.port}.db`);
  const child =
    setup.redisPid === undefined
      ? startGateway(setup.port, upstream, database, { MODELGATE_CONFIG: config }, [], cores)
      : startGateway(
          setup.port,
          upstream,
          database,
          { MODELGATE_CONFIG: config, MODELGATE_REDIS_URL: redis.url },
          setup.workers ? ['--workers', '2'] : [],
          cores,
        );
  return { ...setup, pid: child.pid ?? 0 };
});

/** Script calls Redis has run so far (`INFO commandstats`: EVALSHA and EVAL). */
function scriptCalls(): number {
  const info = execFileSync('redis-cli', ['-p', String(redis.port), 'info', 'commandstats'], {
    encoding: 'utf8',
  });
  const calls = (command: string): number =>
    Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

function bodyFor(scenario: string): string {
  return JSON.stringify({
    model: scenario.endsWith('anthropic') ? 'B-4' : 'A-3',
    messages: [
      { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
      { role: 'user', content: 'Summarise in one sentence why HTTP keep-alive matters for API gateways.' },
    ],
    max_tokens: 64,
    ...(scenario.startsWith('stream') ? { stream: true } : {}),
  });
}

const authorization = `Bearer ${clientKey}`;
/** Each worker on a core of its own, among the cores wrk and the mock (core 0) leave free. */
function spreadWorkers(): void {
  const free = Array.from({ length: availableParallelism() }, (_, core) => core).filter((core) => core !== 0);
  for (const gateway of gateways.filter((setup) => setup.workers)) {
    processTree(gateway.pid)
      .slice(1)
      .forEach((worker, index) => pinExisting(free[index % free.length] ?? measuredCore, worker));
  }
  if (free.length < 2)
    process.stdout.write(`--cores spread: ${free.length} core beside wrk's, workers share it\n`);
}

interface Rep {
  cpu: number;
  rps: number;
  redis: number;
  primary: number;
  scripts: number;
  p50: number;
  p99: number;
  shares: ThreadShare[];
  /** --syscalls: per process, its main thread's loop turns, writes and reads per request. */
  syscalls: string[];
}
type Gateway = (typeof gateways)[number];

/** One rep of one set-up: closed-loop wrk (`rate` undefined) or open loop at `rate`. */
async function measureRep(
  gateway: Gateway,
  scenario: string,
  script: string,
  rate: number | undefined,
): Promise<Rep> {
  const pids = [...processTree(gateway.pid), ...(gateway.redisPid === undefined ? [] : [gateway.redisPid])];
  const roleOf = (pid: number): string =>
    pid === gateway.redisPid
      ? 'redis'
      : pid === gateway.pid
        ? gateway.workers
          ? 'primary'
          : 'gateway'
        : `worker ${pids.indexOf(pid)}`;
  const scriptsBefore = gateway.redisPid === undefined ? 0 : scriptCalls();
  const threadsBefore = values.threads ? sampleThreads(pids) : [];
  const origin = `http://127.0.0.1:${gateway.port}`;
  const counter = values.syscalls ? countSyscalls(pids) : undefined;
  if (counter !== undefined) await sleep(300); // perf attaches
  const run =
    rate === undefined
      ? {
          ...measureCpu(pids, `${origin}/v1/chat/completions`, script, connections, seconds),
          p50Ms: NaN,
          p99Ms: NaN,
        }
      : measureFixedRate(
          pids,
          origin,
          bodyFor(scenario),
          authorization,
          rate,
          seconds,
          scenario.startsWith('stream'),
        );
  const counts = await counter?.stop();
  const syscalls = pids.flatMap((pid) => {
    const row = counts?.get(pid);
    if (row === undefined) return [];
    const per = (calls: number): string => (calls / run.requests).toFixed(2);
    return [
      `    ${roleOf(pid).padEnd(9)} main thread per request: loop turns (epoll waits) ${per(row.epoll_wait + row.epoll_pwait)}, ` +
        `writev ${per(row.writev)}, write ${per(row.write)}, read ${per(row.read)}\n`,
    ];
  });
  const shares = values.threads ? threadShares(threadsBefore, sampleThreads(pids), run.requests, roleOf) : [];
  return {
    cpu: run.cpuMicrosPerRequest,
    rps: run.requests / seconds,
    redis: gateway.redisPid === undefined ? 0 : (run.perProcess.get(gateway.redisPid) ?? 0),
    primary: run.perProcess.get(gateway.pid) ?? 0,
    scripts: gateway.redisPid === undefined ? 0 : (scriptCalls() - scriptsBefore) / run.requests,
    p50: run.p50Ms,
    p99: run.p99Ms,
    shares,
    syscalls,
  };
}

function report(scenario: string, rate: number | undefined, results: Map<Gateway, Rep[]>): void {
  const mode = rate === undefined ? `${connections} conns` : `${rate}/s`;
  const label = `${scenario} ${mode}`.padEnd(24);
  for (const gateway of gateways) {
    const rows = results.get(gateway) ?? [];
    const cpu = median(rows.map((rep) => rep.cpu));
    process.stdout.write(
      `${label} ${gateway.name.padEnd(29)} CPU ${cpu.toFixed(1).padStart(6)} µs/req ` +
        `[${rows.map((rep) => rep.cpu.toFixed(0)).join(' ')}]` +
        (gateway.redisPid === undefined
          ? ''
          : ` (primary ${median(rows.map((rep) => rep.primary)).toFixed(1)}, Redis ${median(rows.map((rep) => rep.redis)).toFixed(1)}, ` +
            `${median(rows.map((rep) => rep.scripts)).toFixed(3)} scripts/req)`) +
        (rate === undefined
          ? `, ${median(rows.map((rep) => rep.rps)).toFixed(0)} req/s, ${(1e6 / cpu).toFixed(0)} req/s per core of work\n`
          : `, p50 ${median(rows.map((rep) => rep.p50)).toFixed(2)} p99 ${median(rows.map((rep) => rep.p99)).toFixed(2)} ms\n`),
    );
    // The last rep's threads (each rep's are alike; the medians above are the figure).
    if (values.threads) process.stdout.write(formatShares(rows.at(-1)?.shares ?? []));
    process.stdout.write((rows.at(-1)?.syscalls ?? []).join(''));
  }
  const [one, , workers] = gateways.map((gateway) => results.get(gateway) ?? []);
  const ratio = median((workers ?? []).map((rep) => rep.cpu)) / median((one ?? []).map((rep) => rep.cpu));
  process.stdout.write(`${label} workers ÷ one: ${ratio.toFixed(2)} (target ≤ 1.25)\n`);
}

try {
  for (const gateway of gateways) {
    await ready(
      `http://127.0.0.1:${gateway.port}/v1/chat/completions`,
      bodyFor('chat-openai'),
      authorization,
    );
  }
  if (values.cores === 'spread') spreadWorkers();
  for (const scenario of scenarios) {
    const script = wrkScript(`scale-${scenario}`, bodyFor(scenario), authorization);
    // Warm every process (both workers get connections: wrk opens many).
    for (const gateway of gateways)
      wrk(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, script, connections, 3);
    for (const rate of rates.length === 0 ? [undefined] : rates) {
      const results = new Map(gateways.map((gateway) => [gateway, [] as Rep[]]));
      for (let rep = 0; rep < reps; rep++) {
        for (const gateway of rep % 2 === 0 ? gateways : [...gateways].reverse())
          results.get(gateway)?.push(await measureRep(gateway, scenario, script, rate));
      }
      report(scenario, rate, results);
    }
  }
} finally {
  await redis.stop();
}
process.exit(0);
