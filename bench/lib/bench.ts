/**
 * The bench run: start the simulator, the bare proxy and modelgate, check each answers every
 * scenario correctly, warm up, then measure rounds with the three targets interleaved (direct, bare,
 * modelgate, direct, …) so slow machine drift hits all of them alike.
 */
import { measureFirstByte } from './first-byte.ts';
import { measureOpenLoop } from './open-loop.ts';
import type { OpenLoopCell, OpenLoopOptions } from './open-loop.ts';
import type { FirstByteResult } from './first-byte.ts';
import { startLoadGenerator } from './load.ts';
import type { LoadGenerator } from './load.ts';
import type { LoadResult } from './load-protocol.ts';
import { preflight } from './preflight.ts';
import type { PreflightResult } from './preflight.ts';
import {
  freePort,
  makeScratchDirectory,
  removeScratchDirectories,
  startServer,
  stopAll,
} from './processes.ts';
import type { RunningServer, ServerSpec } from './processes.ts';
import { cpuMicros, peakRssKb, resetPeakRss } from './proc-stats.ts';
import { requestFor, scenarios, targetNames } from './scenarios.ts';
import type { Scenario, ScenarioId, TargetName } from './scenarios.ts';

export interface BenchOptions {
  seconds: number;
  rounds: number;
  warmupSeconds: number;
  /** Closed-loop connection counts; empty runs the open loop only. */
  connections: readonly number[];
  /** The open-loop cells (`BENCH_RATES`), run after the closed loop; undefined for none. */
  openLoop: Omit<OpenLoopOptions, 'log'> | undefined;
  firstByteRequests: number;
  /** Core for the load generator, or undefined to leave it unpinned. */
  loadgenCpu: number | undefined;
  cwd: string;
  launchers: Launchers;
  log: (line: string) => void;
}

/** How to start each process; run.ts gives the real commands, tests may give stand-ins. */
export interface Launchers {
  simulator(port: number): ServerSpec;
  bare(port: number, upstreamUrl: string): ServerSpec;
  modelgate(port: number, upstreamUrl: string, dataDir: string): ServerSpec;
}

export interface Measurement {
  scenario: ScenarioId;
  connections: number;
  round: number;
  target: TargetName;
  load: LoadResult;
  /** Server process CPU (user+system) per 2xx response, µs; null without /proc. */
  cpuMicrosPerRequest: number | null;
  /** VmHWM after the measurement, kB. */
  peakRssKb: number | null;
  /** 'measurement' when VmHWM could be reset at the start, else the peak since the process started. */
  peakRssScope: 'measurement' | 'process';
}

export interface FirstByteMeasurement {
  round: number;
  target: TargetName;
  result: FirstByteResult;
}

export interface ProcessInfo {
  name: string;
  pid: number;
  cpu: number | null;
}

export interface BenchRun {
  processes: ProcessInfo[];
  preflight: { scenario: ScenarioId; target: TargetName; result: PreflightResult }[];
  measurements: Measurement[];
  firstByte: FirstByteMeasurement[];
  openLoop: OpenLoopCell[];
  peakRssScope: 'measurement' | 'process';
}

type Targets = Record<TargetName, RunningServer>;

export async function runBench(options: BenchOptions): Promise<BenchRun> {
  const dataDir = makeScratchDirectory();
  let loadGenerator: LoadGenerator | undefined;
  try {
    const targets = await startTargets(options, dataDir);
    const run: BenchRun = {
      processes: Object.values(targets).map(({ name, pid, cpu }) => ({ name, pid, cpu })),
      preflight: await checkTargets(targets),
      measurements: [],
      firstByte: [],
      openLoop: [],
      peakRssScope: 'measurement',
    };
    if (options.connections.length > 0) {
      loadGenerator = await startLoadGenerator(options.loadgenCpu);
      run.processes.push({ name: 'load generator', pid: loadGenerator.pid, cpu: loadGenerator.cpu });
      await warmUp(options, targets, loadGenerator);
      await measureAll(options, targets, loadGenerator, run);
      await measureFirstBytes(options, targets, run);
    }
    if (options.openLoop !== undefined) {
      run.openLoop = await measureOpenLoop({ ...options.openLoop, log: options.log }, targets);
    }
    return run;
  } finally {
    loadGenerator?.close();
    await stopAll();
    removeScratchDirectories();
  }
}

async function startTargets(options: BenchOptions, dataDir: string): Promise<Targets> {
  const { launchers, cwd, log } = options;
  const simulator = await startServer(launchers.simulator(await freePort()), cwd);
  log(`simulator  pid ${simulator.pid} ${simulator.url} ${pinning(simulator)}`);
  const bare = await startServer(launchers.bare(await freePort(), simulator.url), cwd);
  log(`bare proxy pid ${bare.pid} ${bare.url} ${pinning(bare)}`);
  const modelgate = await startServer(launchers.modelgate(await freePort(), simulator.url, dataDir), cwd);
  log(`modelgate  pid ${modelgate.pid} ${modelgate.url} ${pinning(modelgate)}`);
  return { direct: simulator, bare, modelgate };
}

function pinning(server: RunningServer): string {
  return server.cpu === null ? '(unpinned)' : `(core ${server.cpu})`;
}

async function checkTargets(targets: Targets): Promise<BenchRun['preflight']> {
  const results: BenchRun['preflight'] = [];
  for (const scenario of scenarios) {
    for (const target of targetNames) {
      const result = await preflight(targets[target].url, scenario, requestFor(scenario, target));
      results.push({ scenario: scenario.id, target, result });
    }
  }
  return results;
}

/** Warm every path at every connection count, so round 1 is not also the JIT's first look at it. */
async function warmUp(options: BenchOptions, targets: Targets, loadGenerator: LoadGenerator): Promise<void> {
  if (options.warmupSeconds <= 0) return;
  const seconds = options.warmupSeconds / options.connections.length;
  options.log(`warm-up: ${options.warmupSeconds} s per scenario and target`);
  for (const scenario of scenarios) {
    for (const target of targetNames) {
      for (const connections of options.connections) {
        await loadGenerator.run(job(targets, scenario, target, connections, seconds));
      }
    }
  }
}

function job(targets: Targets, scenario: Scenario, target: TargetName, connections: number, seconds: number) {
  const spec = requestFor(scenario, target);
  return { ...spec, url: targets[target].url + spec.path, connections, seconds };
}

async function measureAll(
  options: BenchOptions,
  targets: Targets,
  loadGenerator: LoadGenerator,
  run: BenchRun,
): Promise<void> {
  const total = options.rounds * scenarios.length * options.connections.length * targetNames.length;
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of scenarios) {
      for (const connections of options.connections) {
        for (const target of targetNames) {
          const measurement = await measureOne(options, targets[target], loadGenerator, {
            scenario,
            target,
            connections,
            round,
          });
          if (measurement.peakRssScope === 'process') run.peakRssScope = 'process';
          run.measurements.push(measurement);
          options.log(progressLine(run.measurements.length, total, measurement));
        }
      }
    }
  }
}

async function measureOne(
  options: BenchOptions,
  server: RunningServer,
  loadGenerator: LoadGenerator,
  at: { scenario: Scenario; target: TargetName; connections: number; round: number },
): Promise<Measurement> {
  // Sampled when the load generator says it is about to start, i.e. after its own startup.
  const before: { cpu: number | null; peakReset: boolean } = { cpu: null, peakReset: false };
  const spec = requestFor(at.scenario, at.target);
  const load = await loadGenerator.run(
    { ...spec, url: server.url + spec.path, connections: at.connections, seconds: options.seconds },
    () => {
      before.peakReset = resetPeakRss(server.pid);
      before.cpu = cpuMicros(server.pid);
    },
  );
  const cpuAfter = cpuMicros(server.pid);
  const cpuSpent = before.cpu === null || cpuAfter === null ? null : cpuAfter - before.cpu;
  return {
    scenario: at.scenario.id,
    connections: at.connections,
    round: at.round,
    target: at.target,
    load,
    cpuMicrosPerRequest: cpuSpent === null || load.ok === 0 ? null : cpuSpent / load.ok,
    peakRssKb: peakRssKb(server.pid),
    peakRssScope: before.peakReset ? 'measurement' : 'process',
  };
}

function progressLine(index: number, total: number, m: Measurement): string {
  const failures = m.load.non2xx + m.load.errors + m.load.timeouts;
  return (
    `[${index}/${total}] round ${m.round} ${m.scenario} c=${m.connections} ${m.target}: ` +
    `${m.load.requestsPerSecond.toFixed(0)} req/s, p50 ${m.load.latency.p50.toFixed(3)} ms` +
    (failures > 0 ? `, ${failures} failed` : '')
  );
}

async function measureFirstBytes(options: BenchOptions, targets: Targets, run: BenchRun): Promise<void> {
  const scenario = scenarios.find((candidate) => candidate.stream);
  if (scenario === undefined || options.firstByteRequests <= 0) return;
  options.log(`stream first byte: ${options.firstByteRequests} sequential requests per target and round`);
  for (let round = 1; round <= options.rounds; round++) {
    for (const target of targetNames) {
      const result = await measureFirstByte(
        targets[target].url,
        requestFor(scenario, target),
        options.firstByteRequests,
      );
      run.firstByte.push({ round, target, result });
    }
  }
}
