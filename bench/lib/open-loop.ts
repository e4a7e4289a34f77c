/**
 * The open-loop mode of `npm run bench` (`BENCH_RATES=1000,3000`): per rep, scenario and rate, the
 * three targets back to back (direct, bare, modelgate; reversed every other rep), each cell run by
 * a fresh `open-loop-client.ts` pinned like the rig's generator (core 0, with the simulator; the
 * measured proxy alone on core 1). Reports what users feel: latency added over direct at a steady
 * rate, paired per rep, and modelgate's added tail beyond the bare proxy's.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { addedBeyondBare, addedOverDirect } from './open-loop-math.ts';
import type { LatencySummary, PairedFigure } from './open-loop-math.ts';
import type { OpenLoopJob, OpenLoopResult } from './open-loop-protocol.ts';
import { canPin } from './processes.ts';
import type { RunningServer } from './processes.ts';
import { cpuMicros } from './proc-stats.ts';
import { requestFor, scenarios, targetNames } from './scenarios.ts';
import type { Scenario, ScenarioId, TargetName } from './scenarios.ts';
import { median } from './stats.ts';

const run = promisify(execFile);
const clientPath = fileURLToPath(new URL('./open-loop-client.ts', import.meta.url));
/** The generator shares core 0 with the simulator, as the rig's shares it with its mock. */
const generatorCore = 0;

export interface OpenLoopOptions {
  rates: readonly number[];
  seconds: number;
  warmupSeconds: number;
  reps: number;
  maxConnections: number;
  log: (line: string) => void;
}

export interface OpenLoopCell {
  scenario: ScenarioId;
  rate: number;
  rep: number;
  target: TargetName;
  result: OpenLoopResult;
  /** The measured server's CPU (user+system) per answered request, µs; null without /proc. */
  serverCpuMicrosPerRequest: number | null;
}

export async function measureOpenLoop(
  options: OpenLoopOptions,
  targets: Record<TargetName, RunningServer>,
): Promise<OpenLoopCell[]> {
  const cells: OpenLoopCell[] = [];
  const total = options.reps * scenarios.length * options.rates.length * targetNames.length;
  for (let rep = 1; rep <= options.reps; rep++) {
    const order = rep % 2 === 1 ? targetNames : [...targetNames].reverse();
    for (const scenario of scenarios) {
      for (const rate of options.rates) {
        for (const target of order) {
          const cell = await measureCell(options, targets[target], { scenario, rate, rep, target });
          cells.push(cell);
          options.log(progressLine(cells.length, total, cell));
        }
      }
    }
  }
  return cells;
}

async function measureCell(
  options: OpenLoopOptions,
  server: RunningServer,
  at: { scenario: Scenario; rate: number; rep: number; target: TargetName },
): Promise<OpenLoopCell> {
  const spec = requestFor(at.scenario, at.target);
  const job: OpenLoopJob = {
    url: server.url,
    path: spec.path,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    stream: at.scenario.stream,
    rate: at.rate,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    primedConnections: 8,
    maxConnections: options.maxConnections,
    timeoutSeconds: 10,
    graceSeconds: 2,
  };
  const command = canPin()
    ? ['taskset', ['-c', String(generatorCore), process.execPath, clientPath, JSON.stringify(job)]]
    : [process.execPath, [clientPath, JSON.stringify(job)]];
  const cpuBefore = cpuMicros(server.pid);
  const { stdout } = await run(command[0] as string, command[1] as string[], { maxBuffer: 1 << 20 });
  const cpuAfter = cpuMicros(server.pid);
  // JSON writes an empty cell's NaN percentiles as null; only `firstByte` is null on purpose.
  const result = JSON.parse(stdout, (key, value: unknown) =>
    value === null && key !== 'firstByte' ? Number.NaN : value,
  ) as OpenLoopResult;
  // Warm-up and priming are in the CPU figure too: divide by every request the cell answered.
  const answered = result.ok + Math.round(at.rate * options.warmupSeconds) + job.primedConnections;
  return {
    scenario: at.scenario.id,
    rate: at.rate,
    rep: at.rep,
    target: at.target,
    result,
    serverCpuMicrosPerRequest:
      cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / answered,
  };
}

/** The figure users feel: end of the answer for chat, the first byte for streams. */
export function feltLatency(cell: OpenLoopCell): LatencySummary {
  return cell.result.firstByte ?? cell.result.latency;
}

function progressLine(index: number, total: number, cell: OpenLoopCell): string {
  const felt = feltLatency(cell);
  const { connections, sendLag } = cell.result;
  return (
    `[open ${index}/${total}] rep ${cell.rep} ${cell.scenario} ${cell.rate}/s ${cell.target}: ` +
    `p50 ${felt.p50.toFixed(3)} p99 ${felt.p99.toFixed(3)} ms, conns +${connections.opened}, ` +
    `lag p50 ${sendLag.p50.toFixed(2)} ms` +
    (cell.result.saturated ? ', SATURATED' : '') +
    (cell.result.errors > 0 ? `, ${cell.result.errors} errors` : '')
  );
}

export interface OpenLoopRow {
  scenario: ScenarioId;
  rate: number;
  target: TargetName;
  p50Ms: number;
  p99Ms: number;
  addedP50Ms: number | null;
  addedP99Ms: number | null;
  /** modelgate only: its added p99 less the bare proxy's, paired per rep. */
  p99BeyondBareMs: number | null;
  cpuMicrosPerRequest: number | null;
  saturatedReps: number;
  maxConnectionsOpened: number;
}

export function summarizeOpenLoop(cells: readonly OpenLoopCell[]): OpenLoopRow[] {
  const rows: OpenLoopRow[] = [];
  const rates = [...new Set(cells.map((cell) => cell.rate))];
  for (const scenario of scenarios) {
    for (const rate of rates) {
      const of = (target: TargetName): OpenLoopCell[] =>
        cells.filter((c) => c.scenario === scenario.id && c.rate === rate && c.target === target);
      const direct = of('direct');
      const pairs = (target: TargetName, field: 'p50' | 'p99'): PairedFigure[] =>
        of(target).flatMap((cell) => {
          const same = direct.find((d) => d.rep === cell.rep);
          return same === undefined
            ? []
            : [{ target: feltLatency(cell)[field], direct: feltLatency(same)[field] }];
        });
      for (const target of targetNames) {
        const mine = of(target);
        if (mine.length === 0) continue;
        const cpu = mine.map((cell) => cell.serverCpuMicrosPerRequest).filter((v) => v !== null);
        rows.push({
          scenario: scenario.id,
          rate,
          target,
          p50Ms: median(mine.map((cell) => feltLatency(cell).p50)),
          p99Ms: median(mine.map((cell) => feltLatency(cell).p99)),
          addedP50Ms: target === 'direct' ? null : addedOverDirect(pairs(target, 'p50')),
          addedP99Ms: target === 'direct' ? null : addedOverDirect(pairs(target, 'p99')),
          p99BeyondBareMs:
            target === 'modelgate' ? addedBeyondBare(pairs('modelgate', 'p99'), pairs('bare', 'p99')) : null,
          cpuMicrosPerRequest: cpu.length === 0 ? null : median(cpu),
          saturatedReps: mine.filter((cell) => cell.result.saturated).length,
          maxConnectionsOpened: Math.max(...mine.map((cell) => cell.result.connections.opened)),
        });
      }
    }
  }
  return rows;
}
