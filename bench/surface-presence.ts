/**
 * Does serving the Responses API cost the chat routes anything? `node bench/surface-presence.ts`
 * runs this tree's modelgate twice, side by side: as it is, and a copy whose surface registry
 * leaves the Responses surface out (everything else identical). Both point at one simulator; the
 * chat scenarios of `npm run bench` run against each, back to back, the order swapped every round
 * so machine drift hits both alike. Reported: medians over rounds of req/s, p50 and server CPU per
 * request, and the paired ratio with / without. Knobs: BENCH_SECONDS (3), BENCH_ROUNDS (6),
 * BENCH_CONNECTIONS (1,32), BENCH_SCENARIOS (all; e.g. cross-stream).
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { realLaunchers } from './lib/launchers.ts';
import { startLoadGenerator, type LoadGenerator } from './lib/load.ts';
import type { LoadJob, LoadResult } from './lib/load-protocol.ts';
import { cpuMicros } from './lib/proc-stats.ts';
import {
  freePort,
  makeScratchDirectory,
  removeScratchDirectories,
  startServer,
  stopAll,
  type RunningServer,
} from './lib/processes.ts';
import { scenarios } from './lib/scenarios.ts';
import { median } from './lib/stats.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 3);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 6);
const connectionCounts = (process.env['BENCH_CONNECTIONS'] ?? '1,32').split(',').map(Number);
const only = process.env['BENCH_SCENARIOS']?.split(',');
const chosen = scenarios.filter((scenario) => only === undefined || only.includes(scenario.id));
const root = resolve(import.meta.dirname, '..');

/** A copy of src/ whose registry serves no Responses surface, runnable with this tree's modules. */
function withoutResponses(scratch: string): string {
  const copy = join(scratch, 'without-responses');
  mkdirSync(copy);
  cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(join(copy, 'package.json'), readFileSync(join(root, 'package.json')));
  const registry = join(copy, 'src/surfaces/registry.ts');
  const text = readFileSync(registry, 'utf8');
  const patched = text.replace('\n  responsesSurface,\n', '\n');
  if (patched === text) throw new Error('registry.ts: the surfaces list is not where this bench expects it');
  writeFileSync(registry, patched);
  return copy;
}

interface Sample {
  load: LoadResult;
  cpuPerRequest: number;
}

async function main(): Promise<void> {
  const scratch = makeScratchDirectory();
  const samples = new Map<string, Sample[]>();
  let loadGenerator: LoadGenerator | undefined;
  try {
    const simulator = await startServer(realLaunchers.simulator(await freePort()), root);
    const start = async (cwd: string, name: string): Promise<RunningServer> => {
      const dataDir = join(scratch, `data-${name}`);
      mkdirSync(dataDir);
      const spec = realLaunchers.modelgate(await freePort(), simulator.url, dataDir);
      // Both from src/ (never one from a dist/ build): the two differ in the registry line only.
      return startServer({ ...spec, name, args: ['src/cli/main.ts', 'serve'] }, cwd);
    };
    const targets = {
      with: await start(root, 'with-responses'),
      without: await start(withoutResponses(scratch), 'without-responses'),
    };
    const generator = await startLoadGenerator(undefined);
    loadGenerator = generator;
    const measure = async (server: RunningServer, key: string, job: LoadJob): Promise<void> => {
      // Sampled when the load generator is about to start (after its own startup).
      const before: { cpu: number | null } = { cpu: null };
      const load = await generator.run(job, () => {
        before.cpu = cpuMicros(server.pid);
      });
      const after = cpuMicros(server.pid);
      const failed = load.non2xx + load.errors + load.timeouts;
      if (failed > 0) throw new Error(`${key}: ${failed} failed requests`);
      const cpuPerRequest =
        before.cpu === null || after === null ? Number.NaN : (after - before.cpu) / load.ok;
      samples.set(key, [...(samples.get(key) ?? []), { load, cpuPerRequest }]);
    };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      for (const scenario of chosen)
        for (const connections of connectionCounts)
          for (const target of order) {
            const spec = scenario.gateway;
            const server = targets[target];
            const job = { ...spec, url: server.url + spec.path, connections, seconds };
            await measure(server, `${scenario.id} c=${connections} ${target}`, job);
          }
      console.log(`round ${round + 1}/${rounds} done`);
    }
  } finally {
    loadGenerator?.close();
    await stopAll();
    removeScratchDirectories();
  }
  console.log(
    'scenario       conns  req/s with  req/s without  ratio   p50 with  p50 without  CPU µs/req with / without',
  );
  for (const scenario of chosen)
    for (const connections of connectionCounts) {
      const a = samples.get(`${scenario.id} c=${connections} with`) ?? [];
      const b = samples.get(`${scenario.id} c=${connections} without`) ?? [];
      const ratio = median(
        a.map((sample, index) => sample.load.requestsPerSecond / (b[index]?.load.requestsPerSecond ?? 1)),
      );
      const column = (list: Sample[], pick: (sample: Sample) => number): number => median(list.map(pick));
      console.log(
        [
          scenario.id.padEnd(14),
          String(connections).padStart(5),
          column(a, (s) => s.load.requestsPerSecond)
            .toFixed(0)
            .padStart(11),
          column(b, (s) => s.load.requestsPerSecond)
            .toFixed(0)
            .padStart(14),
          `${(ratio * 100).toFixed(1)} %`.padStart(7),
          column(a, (s) => s.load.latency.p50)
            .toFixed(3)
            .padStart(10),
          column(b, (s) => s.load.latency.p50)
            .toFixed(3)
            .padStart(12),
          `${column(a, (s) => s.cpuPerRequest).toFixed(0)} / ${column(b, (s) => s.cpuPerRequest).toFixed(0)}`.padStart(
            28,
          ),
        ].join(' '),
      );
    }
}

await main();
