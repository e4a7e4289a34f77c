/**
 * `npm run bench:bytes` (issue 25, target 4): does modelgate's cost grow with the work as it should?
 * CPU per request at 1 KB, 16 KB and 256 KB prompts (same family, A-2: its context holds 256 KB)
 * and at 20- and 500-chunk streams, modelgate beside the rig's bare proxy, interleaved reps on the
 * rig's mock and wrk (CPU 0) with the measured process alone on CPU 1. Prints each case and the
 * per-byte slope between the smallest and the largest case, for both.
 *
 *   node bench/work-scaling.ts [--seconds 4] [--connections 16] [--reps 3]
 */
import { parseArgs } from 'node:util';
import {
  answerBytes,
  clientKey,
  measureCpu,
  ready,
  scratchPath,
  startBare,
  startGateway,
  startMock,
  wrk,
  wrkScript,
} from './lib/rig-cpu.ts';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '16' },
    reps: { type: 'string', default: '3' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const reps = Number(values.reps);

// One mock per stream length (the gateway does not forward the mock's per-request override).
const upstreams = { 20: 9441, 500: 9442 } as const;
for (const [chunks, port] of Object.entries(upstreams)) startMock(port, Number(chunks));
const servers = {
  modelgate: { 20: 9443, 500: 9444 },
  bare: { 20: 9445, 500: 9446 },
} as const;
// taskset and the gateway's own re-execution both keep the pid: the spawned pid is the server's.
const pids = new Map<number, number>();
for (const chunks of [20, 500] as const) {
  const upstream = `http://127.0.0.1:${upstreams[chunks]}`;
  const gateway = startGateway(servers.modelgate[chunks], upstream, scratchPath(`bytes-${chunks}.db`));
  pids.set(servers.modelgate[chunks], gateway.pid ?? 0);
  pids.set(servers.bare[chunks], startBare(servers.bare[chunks], upstream).pid ?? 0);
}

/** Prose of `bytes` bytes from a fixed word list and a fixed seed: varied enough to tokenize like text. */
function prose(bytes: number): string {
  const words = ['gateway', 'latency', 'the', 'request', 'of', 'stream', 'token', 'answer', 'model', 'cost'];
  let seed = 42;
  let text = '';
  while (text.length < bytes) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    text += (words[seed % words.length] ?? 'a') + (seed % 7 === 0 ? '. ' : ' ');
  }
  return text.slice(0, bytes);
}

interface Case {
  name: string;
  chunks: 20 | 500;
  promptBytes: number;
  stream: boolean;
}

const cases: Case[] = [
  { name: 'prompt 1 KB', chunks: 20, promptBytes: 1024, stream: false },
  { name: 'prompt 16 KB', chunks: 20, promptBytes: 16 * 1024, stream: false },
  { name: 'prompt 256 KB', chunks: 20, promptBytes: 256 * 1024, stream: false },
  { name: 'stream 20 chunks', chunks: 20, promptBytes: 200, stream: true },
  { name: 'stream 500 chunks', chunks: 500, promptBytes: 200, stream: true },
];

type TargetName = 'modelgate' | 'bare';
interface Figure {
  cpu: number;
  requestBytes: number;
  answerBytes: number;
}

const results = new Map<string, Record<TargetName, Figure>>();
for (const testCase of cases) {
  const figures = {} as Record<TargetName, Figure>;
  const scripts = {} as Record<TargetName, { script: string; url: string; pid: () => number[] }>;
  const cpus: Record<TargetName, number[]> = { modelgate: [], bare: [] };
  for (const target of ['modelgate', 'bare'] as const) {
    const body = JSON.stringify({
      model: target === 'bare' ? 'gpt-4o-mini' : 'A-2',
      messages: [{ role: 'user', content: prose(testCase.promptBytes) }],
      max_tokens: 64,
      ...(testCase.stream ? { stream: true } : {}),
    });
    const authorization = target === 'bare' ? 'Bearer sk-mock' : `Bearer ${clientKey}`;
    const url = `http://127.0.0.1:${servers[target][testCase.chunks]}/v1/chat/completions`;
    await ready(url, body, authorization);
    const pid = pids.get(servers[target][testCase.chunks]) ?? 0;
    scripts[target] = { script: wrkScript(`bytes-${target}`, body, authorization), url, pid: () => [pid] };
    figures[target] = {
      cpu: Number.NaN,
      requestBytes: Buffer.byteLength(body),
      answerBytes: await answerBytes(url, body, authorization),
    };
    wrk(url, scripts[target].script, connections, 2); // warm-up
  }
  for (let rep = 0; rep < reps; rep++) {
    for (const target of rep % 2 === 0
      ? (['modelgate', 'bare'] as const)
      : (['bare', 'modelgate'] as const)) {
      const { script, url, pid } = scripts[target];
      cpus[target].push(measureCpu(pid(), url, script, connections, seconds).cpuMicrosPerRequest);
    }
  }
  for (const target of ['modelgate', 'bare'] as const) figures[target].cpu = median(cpus[target]);
  results.set(testCase.name, figures);
  process.stdout.write(
    `${testCase.name.padEnd(18)} request ${String(figures.modelgate.requestBytes).padStart(7)} B, answer ` +
      `${String(figures.modelgate.answerBytes).padStart(6)} B (bare ${figures.bare.answerBytes} B): modelgate ` +
      `${figures.modelgate.cpu.toFixed(1)} µs/req [${cpus.modelgate.map((v) => v.toFixed(0)).join(' ')}], bare ` +
      `${figures.bare.cpu.toFixed(1)} [${cpus.bare.map((v) => v.toFixed(0)).join(' ')}], × ${(figures.modelgate.cpu / figures.bare.cpu).toFixed(2)}\n`,
  );
}

/** ns of CPU per byte between two cases, from request bytes (prompts) or answer bytes (streams). */
function slope(
  small: string,
  large: string,
  target: TargetName,
  side: 'requestBytes' | 'answerBytes',
): number {
  const a = results.get(small)?.[target];
  const b = results.get(large)?.[target];
  if (a === undefined || b === undefined) return Number.NaN;
  return ((b.cpu - a.cpu) * 1000) / (b[side] - a[side]);
}
for (const [small, large, side] of [
  ['prompt 1 KB', 'prompt 16 KB', 'requestBytes'],
  ['prompt 16 KB', 'prompt 256 KB', 'requestBytes'],
  ['stream 20 chunks', 'stream 500 chunks', 'answerBytes'],
] as const) {
  process.stdout.write(
    `${small} → ${large}: modelgate ${slope(small, large, 'modelgate', side).toFixed(2)} ns/byte, ` +
      `bare ${slope(small, large, 'bare', side).toFixed(2)} ns/byte (${side === 'requestBytes' ? 'prompt' : 'answer'} bytes)\n`,
  );
}
process.exit(0);
