/**
 * `npm run bench`: simulator direct vs a bare Node proxy vs modelgate, side by side, interleaved.
 * Prints the table, ratios and PASS/FAIL targets, and writes bench/results/<timestamp>.json.
 * Environment knobs are listed in bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from './lib/bench.ts';
import type { BenchOptions } from './lib/bench.ts';
import { formatSummary } from './lib/format.ts';
import { canPin, killAllNow } from './lib/processes.ts';
import { summarize } from './lib/report.ts';
import { realLaunchers } from './lib/launchers.ts';
import { summarizeOpenLoop } from './lib/open-loop.ts';
import { formatOpenLoop, openLoopChecks } from './lib/open-loop-format.ts';
import { scenarios } from './lib/scenarios.ts';
import { formatMetricsPath, measureMetricsPath } from './metrics-path.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

function numberFromEnv(name: string, fallback: number, minimum: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < minimum)
    throw new Error(`${name} must be a number >= ${minimum}, got "${raw}"`);
  return value;
}

function connectionsFromEnv(): number[] {
  const raw = process.env['BENCH_CONNECTIONS'] ?? '1,32';
  if (raw.trim() === 'none') return [];
  const list = raw.split(',').map((part) => Number(part.trim()));
  if (list.length === 0 || list.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new Error(`BENCH_CONNECTIONS must be a comma-separated list of positive integers, got "${raw}"`);
  }
  return list;
}

/** `BENCH_RATES=1000,3000`: the open-loop cells; unset or empty for none. */
function openLoopFromEnv(rounds: number): BenchOptions['openLoop'] {
  const raw = process.env['BENCH_RATES'] ?? '';
  if (raw.trim() === '') return undefined;
  const rates = raw.split(',').map((part) => Number(part.trim()));
  if (rates.some((rate) => !Number.isFinite(rate) || rate <= 0)) {
    throw new Error(`BENCH_RATES must be a comma-separated list of positive request rates, got "${raw}"`);
  }
  return {
    rates,
    seconds: numberFromEnv('BENCH_OPEN_SECONDS', 5, 1),
    warmupSeconds: numberFromEnv('BENCH_OPEN_WARMUP_SECONDS', 1, 0),
    reps: Math.round(numberFromEnv('BENCH_OPEN_REPS', rounds, 1)),
    maxConnections: Math.round(numberFromEnv('BENCH_OPEN_MAX_CONNECTIONS', 256, 1)),
  };
}

function optionsFromEnv(): BenchOptions {
  const loadgenCpu = process.env['BENCH_LOADGEN_CPU'];
  const rounds = Math.round(numberFromEnv('BENCH_ROUNDS', 2, 1));
  return {
    seconds: numberFromEnv('BENCH_SECONDS', 5, 1),
    rounds,
    warmupSeconds: numberFromEnv('BENCH_WARMUP_SECONDS', 1, 0),
    connections: connectionsFromEnv(),
    openLoop: openLoopFromEnv(rounds),
    firstByteRequests: Math.round(numberFromEnv('BENCH_FIRST_BYTE_REQUESTS', 200, 0)),
    loadgenCpu: loadgenCpu === undefined || loadgenCpu === '' ? undefined : Number(loadgenCpu),
    cwd: repoRoot,
    launchers: realLaunchers,
    log: (line) => process.stderr.write(line + '\n'),
  };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const options = optionsFromEnv();
  const startedAt = new Date();
  const measurementCount = options.rounds * 3 * options.connections.length * 3;
  const open = options.openLoop;
  options.log(
    `modelgate bench: ${measurementCount} measurements of ${options.seconds} s, ${options.rounds} rounds, ` +
      `connections ${options.connections.join('/') || 'none'}, ` +
      (open === undefined ? '' : `open loop at ${open.rates.join('/')} req/s × ${open.reps} reps, `) +
      `taskset ${canPin() ? 'on' : 'off'}`,
  );
  const run = await runBench(options);
  const closedLoop = options.connections.length > 0;
  const summary = closedLoop
    ? summarize(run, Math.max(...options.connections), Math.min(...options.connections))
    : null;
  if (summary !== null) process.stdout.write('\n' + formatSummary(summary) + '\n');
  const openLoop = summarizeOpenLoop(run.openLoop);
  if (openLoop.length > 0) process.stdout.write('\n' + formatOpenLoop(openLoop) + '\n');
  // In process, after the load: the metrics' own cost per request, with and without.
  const metricsPath = measureMetricsPath();
  process.stdout.write('\n' + formatMetricsPath(metricsPath) + '\n');
  const { launchers: _launchers, log: _log, cwd: _cwd, ...config } = options;
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    cpus: availableParallelism(),
    taskset: canPin(),
    config: { ...config, loadgenCpu: config.loadgenCpu ?? null },
    scenarios,
    ...run,
    summary,
    openLoopSummary: openLoop,
    metricsPath,
  };
  const directory = join(repoRoot, 'bench', 'results');
  await mkdir(directory, { recursive: true });
  const file = join(directory, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nresults: ${file}\n`);
  const metricsOver = metricsPath.metricsUs > metricsPath.targetUs;
  if (
    process.env['BENCH_STRICT'] === '1' &&
    (metricsOver ||
      summary?.checks.some((check) => check.pass === false) === true ||
      openLoopChecks(openLoop).some((check) => check.pass === false))
  )
    process.exitCode = 1;
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllNow();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  killAllNow();
  process.exitCode = 1;
});
