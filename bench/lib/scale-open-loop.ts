/**
 * `bench:scale --rates`: one set-up at a fixed request rate (open loop, the client `npm run bench`
 * uses: request i is due at t0 + i / rate whatever happened before it), pinned where wrk would be.
 * Well below saturation every set-up does the same requests in the same time, so CPU per request
 * compares the work, not how well a saturated core batches it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { OpenLoopJob, OpenLoopResult } from './open-loop-protocol.ts';
import { cpuMicros } from './proc-stats.ts';
import { loadCore } from './rig-cpu.ts';

const clientPath = fileURLToPath(new URL('./open-loop-client.ts', import.meta.url));
const warmupSeconds = 1;
const primedConnections = 8;

export interface FixedRateRun {
  cpuMicrosPerRequest: number;
  perProcess: Map<number, number>;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  saturated: boolean;
}

export function measureFixedRate(
  pids: readonly number[],
  origin: string,
  body: string,
  authorization: string,
  rate: number,
  seconds: number,
  stream: boolean,
): FixedRateRun {
  const job: OpenLoopJob = {
    url: origin,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body,
    stream,
    rate,
    seconds,
    warmupSeconds,
    primedConnections,
    maxConnections: 64,
    timeoutSeconds: 10,
    graceSeconds: 2,
  };
  const before = pids.map((pid) => cpuMicros(pid) ?? 0);
  const output = execFileSync(
    'taskset',
    ['-c', String(loadCore), process.execPath, clientPath, JSON.stringify(job)],
    { maxBuffer: 1 << 20 },
  ).toString();
  const result = JSON.parse(output, (key, value: unknown) =>
    value === null && key !== 'firstByte' ? Number.NaN : value,
  ) as OpenLoopResult;
  if (result.ok === 0 || result.errors > result.ok / 100)
    throw new Error(`${origin} at ${rate}/s: ${result.errors} errors, ${result.ok} answered`);
  // Warm-up and priming are in the CPU figure too: divide by every request the run answered.
  const requests = result.ok + Math.round(rate * warmupSeconds) + primedConnections;
  const perProcess = new Map(
    pids.map((pid, index) => [pid, ((cpuMicros(pid) ?? 0) - (before[index] ?? 0)) / requests]),
  );
  const felt = result.firstByte ?? result.latency;
  return {
    cpuMicrosPerRequest: [...perProcess.values()].reduce((sum, value) => sum + value, 0),
    perProcess,
    requests,
    p50Ms: felt.p50,
    p99Ms: felt.p99,
    saturated: result.saturated,
  };
}
