/**
 * Interleaved A/B of modelgate builds or heap flags, the shared rig's way but in a minute or two:
 * the rig's plain mock and wrk (one thread) on CPU 0, every target on CPU 1 (one loaded at a time),
 * reps alternating between targets (order reversed every other rep), medians reported with each
 * rep's CPU per request so the machine's drift shows. Needs `wrk`, `taskset` and the rig
 * (`../shared/bench-rig/`, `setup.sh` once); build each checkout first (`npm run build`).
 *
 *   node bench/ab.ts <scenario> [--seconds 4] [--connections 32] [--reps 6] <target>...
 *
 * scenario: chat-openai (A-3) | chat-anthropic (B-4) | stream-openai | stream-anthropic (20 chunks).
 * target: a checkout's directory (its `bin/modelgate.js serve`), `dir#FLAGS` to run it with
 * `MODELGATE_NODE_FLAGS=FLAGS` (e.g. `.#none`), `bare` for the rig's bare proxy, or `floor` for the
 * parsing floor (`parsing-floor.ts`: what any gateway that parses a same-family request and its
 * answer must do; chat-openai and stream-openai only). A checkout's target may end in
 * `+NAME=value` (one or more) to run it with those environment variables (e.g. `.+MALLOC_ARENA_MAX=2`).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMicros, peakRssKb } from './lib/proc-stats.ts';
import { median } from './lib/stats.ts';
import { serveEnvironment } from './lib/serve-environment.ts';

const rig = fileURLToPath(new URL('../../shared/bench-rig/', import.meta.url));
const clientKey = 'sk-bench-client-key-0000000000';
const mockPort = 9401;
const scratch = tmpdir();

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '32' },
    reps: { type: 'string', default: '6' },
  },
});
const [scenario, ...targetSpecs] = positionals;
const scenarios = ['chat-openai', 'chat-anthropic', 'stream-openai', 'stream-anthropic'];
if (scenario === undefined || !scenarios.includes(scenario) || targetSpecs.length === 0) {
  process.stderr.write(`usage: node bench/ab.ts <${scenarios.join('|')}> [options] <target>...\n`);
  process.exit(2);
}

const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

function pinned(cpu: number, args: string[], env: NodeJS.ProcessEnv, cwd?: string): ChildProcess {
  const child = spawn('taskset', ['-c', String(cpu), process.execPath, ...args], {
    env: { ...process.env, ...env },
    cwd,
    // AB_OUTPUT=file: the targets' output there (e.g. `--trace-gc` in a target's flags).
    stdio:
      process.env.AB_OUTPUT === undefined
        ? 'ignore'
        : ['ignore', openSync(process.env.AB_OUTPUT, 'a'), 'ignore'],
  });
  children.push(child);
  return child;
}

interface Rep {
  rps: number;
  p50: number;
  p99: number;
  cpuMicros: number;
}

interface Target {
  name: string;
  port: number;
  process: ChildProcess;
  script: string;
  body: string;
  authorization: string;
  reps: Rep[];
}

const stream = scenario.startsWith('stream');
const system = 'You are a helpful assistant. Answer briefly.';
const user =
  'Summarise in one sentence why HTTP keep-alive matters for API gateways that proxy LLM requests.';

pinned(0, [join(rig, 'mock-upstream.mjs')], {
  MOCK_PORT: String(mockPort),
  MOCK_CHUNKS: '20',
  MOCK_DELAY_MS: '0',
});

const targets: Target[] = targetSpecs.map((spec, index) => {
  const [target = '', ...assignments] = spec.split('+');
  const [where = '', nodeFlags] = target.split('#');
  const extraEnv = Object.fromEntries(assignments.map((assignment) => assignment.split('=', 2)));
  const port = 9410 + index;
  const bare = where === 'bare';
  const floor = where === 'floor';
  const upstream = `http://127.0.0.1:${mockPort}`;
  let child: ChildProcess;
  if (floor) {
    if (!scenario.endsWith('openai'))
      throw new Error('floor: the parsing floor serves chat-openai and stream-openai only');
    const script = fileURLToPath(new URL('parsing-floor.ts', import.meta.url));
    child = pinned(1, [script, '--port', String(port), '--upstream', upstream], { NODE_ENV: 'production' });
  } else if (bare) {
    child = pinned(1, [join(rig, 'bare-proxy.mjs'), '--port', String(port), '--upstream', upstream], {
      NODE_ENV: 'production',
    });
  } else {
    const database = join(scratch, `modelgate-ab-${process.pid}-${index}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
    const directory = resolve(where);
    child = pinned(
      1,
      [join(directory, 'bin/modelgate.js'), 'serve'],
      {
        ...serveEnvironment({ port, database, upstream, rig, clientKey }),
        ...(nodeFlags === undefined ? {} : { MODELGATE_NODE_FLAGS: nodeFlags }),
        ...extraEnv,
      },
      directory,
    );
  }
  const model = bare ? 'gpt-4o-mini' : scenario.endsWith('openai') ? 'A-3' : 'B-4';
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const body = JSON.stringify({
    model,
    messages,
    max_tokens: 64,
    temperature: 0.2,
    ...(stream ? { stream } : {}),
  });
  const authorization = bare ? 'Bearer sk-mock' : `Bearer ${clientKey}`;
  const script = join(scratch, `modelgate-ab-${process.pid}-${index}.lua`);
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = [[${body}]]\nwrk.headers["content-type"] = "application/json"\nwrk.headers["authorization"] = "${authorization}"\n`,
  );
  return { name: spec, port, process: child, script, body, authorization, reps: [] };
});

/** VmRSS in KiB. */
function rssKb(pid: number): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

function wrk(target: Target, seconds: string): string {
  const url = `http://127.0.0.1:${target.port}/v1/chat/completions`;
  const args = [
    '-c',
    '0',
    'wrk',
    '-t1',
    `-c${values.connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    target.script,
  ];
  return execFileSync('taskset', [...args, url]).toString();
}

/** A wrk latency percentile in milliseconds. */
function percentile(output: string, at: number): number {
  const match = new RegExp(`\\s${at}%\\s+([\\d.]+)(us|ms|s)`).exec(output);
  if (match === null) return Number.NaN;
  const scale = match[2] === 'us' ? 0.001 : match[2] === 's' ? 1000 : 1;
  return Number(match[1]) * scale;
}

async function ready(target: Target): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${target.port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: target.authorization },
        body: target.body,
      });
      await response.text();
      if (response.status === 200) return;
      throw new Error(`${target.name} answered ${response.status}`);
    } catch (error) {
      if (error instanceof Error && error.message.includes('answered')) throw error;
      await sleep(200);
    }
  }
  throw new Error(`${target.name} never answered`);
}

for (const target of targets) await ready(target);
const idle = new Map(targets.map((target) => [target, rssKb(target.process.pid ?? 0)]));
for (const target of targets) wrk(target, '4');
for (let rep = 0; rep < Number(values.reps); rep++) {
  for (const target of rep % 2 === 0 ? targets : [...targets].reverse()) {
    const pid = target.process.pid ?? 0;
    const before = cpuMicros(pid) ?? 0;
    const output = wrk(target, values.seconds);
    const used = (cpuMicros(pid) ?? 0) - before;
    if (output.includes('Non-2xx')) throw new Error(`${target.name}: non-2xx answers\n${output}`);
    const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
    target.reps.push({
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
      p50: percentile(output, 50),
      p99: percentile(output, 99),
      cpuMicros: used / requests,
    });
  }
}
for (const target of targets) {
  const pid = target.process.pid ?? 0;
  const reps = target.reps;
  process.stdout.write(
    `${target.name.padEnd(24)} ${scenario} c${values.connections}: ${median(reps.map((rep) => rep.rps)).toFixed(0)} req/s, ` +
      `p50 ${median(reps.map((rep) => rep.p50)).toFixed(2)} ms, p99 ${median(reps.map((rep) => rep.p99)).toFixed(2)} ms, ` +
      `CPU ${median(reps.map((rep) => rep.cpuMicros)).toFixed(1)} µs/req [${reps.map((rep) => rep.cpuMicros.toFixed(0)).join(' ')}], ` +
      `RSS idle ${((idle.get(target) ?? 0) / 1024).toFixed(1)} MiB, peak ${((peakRssKb(pid) ?? 0) / 1024).toFixed(1)} MiB\n`,
  );
}
for (const target of targets) rmSync(target.script, { force: true });
process.exit(0);
