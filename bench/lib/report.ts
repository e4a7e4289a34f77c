/**
 * Turn the raw rounds into the printed table, the ratios and the PASS/FAIL targets. Round results
 * are combined by median; differences and ratios are taken per round first (paired), then medianed.
 */
import type { BenchRun, Measurement } from './bench.ts';
import { scenarios, targetNames } from './scenarios.ts';
import type { ScenarioId, TargetName } from './scenarios.ts';
import { median } from './stats.ts';

export interface Row {
  scenario: ScenarioId;
  connections: number;
  target: TargetName;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Paired per-round p50 minus direct's p50; null for direct itself. */
  addedP50Ms: number | null;
  cpuMicrosPerRequest: number | null;
  peakRssMb: number | null;
  failed: number;
}

export interface Check {
  name: string;
  value: number;
  limit: number;
  /** 'min': value must be >= limit; 'max': value must be <= limit. */
  kind: 'min' | 'max';
  unit: '%' | 'ms';
  /** null when the figure could not be measured (e.g. connections list without 32). */
  pass: boolean | null;
  /** A related figure printed after the verdict, to help read it. */
  context: string | null;
}

export interface FirstByteSummary {
  target: TargetName;
  p50Ms: number;
  p99Ms: number;
  totalP50Ms: number;
}

export interface Summary {
  rows: Row[];
  firstByte: FirstByteSummary[];
  checks: Check[];
}

const throughputTargets: Record<ScenarioId, number> = {
  'same-family': 0.5,
  'cross-family': 0.4,
  'cross-stream': 0.4,
};
const addedP50LimitMs = 0.3;
const firstByteLimitMs = 0.5;

export function summarize(run: BenchRun, highConnections: number, lowConnections: number): Summary {
  const rows: Row[] = [];
  const connectionsList = [...new Set(run.measurements.map((m) => m.connections))];
  for (const scenario of scenarios) {
    for (const connections of connectionsList) {
      for (const target of targetNames) {
        const row = summarizeCell(run.measurements, scenario.id, connections, target);
        if (row !== undefined) rows.push(row);
      }
    }
  }
  const firstByte = targetNames.flatMap((target) => {
    const results = run.firstByte.filter((m) => m.target === target).map((m) => m.result);
    if (results.length === 0) return [];
    return [
      {
        target,
        p50Ms: median(results.map((r) => r.p50)),
        p99Ms: median(results.map((r) => r.p99)),
        totalP50Ms: median(results.map((r) => r.totalP50)),
      },
    ];
  });
  return { rows, firstByte, checks: checks(run, highConnections, lowConnections) };
}

function cell(measurements: Measurement[], scenario: ScenarioId, connections: number, target: TargetName) {
  return measurements.filter(
    (m) => m.scenario === scenario && m.connections === connections && m.target === target,
  );
}

function summarizeCell(
  measurements: Measurement[],
  scenario: ScenarioId,
  connections: number,
  target: TargetName,
): Row | undefined {
  const mine = cell(measurements, scenario, connections, target);
  if (mine.length === 0) return undefined;
  const direct = cell(measurements, scenario, connections, 'direct');
  const cpu = mine.flatMap((m) => (m.cpuMicrosPerRequest === null ? [] : [m.cpuMicrosPerRequest]));
  const rss = mine.flatMap((m) => (m.peakRssKb === null ? [] : [m.peakRssKb]));
  return {
    scenario,
    connections,
    target,
    requestsPerSecond: median(mine.map((m) => m.load.requestsPerSecond)),
    p50Ms: median(mine.map((m) => m.load.latency.p50)),
    p99Ms: median(mine.map((m) => m.load.latency.p99)),
    addedP50Ms:
      target === 'direct'
        ? null
        : pairedMedian(mine, direct, (a, b) => a.load.latency.p50 - b.load.latency.p50),
    cpuMicrosPerRequest: cpu.length === 0 ? null : median(cpu),
    peakRssMb: rss.length === 0 ? null : Math.max(...rss) / 1024,
    failed: mine.reduce((sum, m) => sum + m.load.non2xx + m.load.errors + m.load.timeouts, 0),
  };
}

/** Median over rounds of `combine(mine[round], other[round])`; NaN when no round has both. */
function pairedMedian<T extends { round: number }>(
  mine: T[],
  other: T[],
  combine: (a: T, b: T) => number,
): number {
  const values = mine.flatMap((a) => {
    const b = other.find((candidate) => candidate.round === a.round);
    return b === undefined ? [] : [combine(a, b)];
  });
  return median(values);
}

function checks(run: BenchRun, highConnections: number, lowConnections: number): Check[] {
  return [
    ...scenarios.map((scenario) => throughputCheck(run.measurements, scenario.id, highConnections)),
    ...scenarios.map((scenario) => addedLatencyCheck(run.measurements, scenario.id, lowConnections)),
    firstByteCheck(run),
  ];
}

function throughputCheck(measurements: Measurement[], scenario: ScenarioId, connections: number): Check {
  const gateway = cell(measurements, scenario, connections, 'modelgate');
  const bare = cell(measurements, scenario, connections, 'bare');
  const ratio = pairedMedian(gateway, bare, (a, b) => a.load.requestsPerSecond / b.load.requestsPerSecond);
  // When the proxy core is not saturated (a busy machine), rps hides the cost; CPU per request does not.
  const cpuRatio = pairedMedian(gateway, bare, (a, b) =>
    a.cpuMicrosPerRequest === null || b.cpuMicrosPerRequest === null
      ? Number.NaN
      : b.cpuMicrosPerRequest / a.cpuMicrosPerRequest,
  );
  return check({
    name: `${scenario} req/s vs bare proxy at ${connections} conn`,
    value: ratio * 100,
    limit: throughputTargets[scenario] * 100,
    kind: 'min',
    unit: '%',
    context: Number.isNaN(cpuRatio)
      ? null
      : `bare CPU/req ÷ modelgate CPU/req: ${(cpuRatio * 100).toFixed(1)} %`,
  });
}

function addedLatencyCheck(measurements: Measurement[], scenario: ScenarioId, connections: number): Check {
  const gateway = cell(measurements, scenario, connections, 'modelgate');
  const direct = cell(measurements, scenario, connections, 'direct');
  const bare = cell(measurements, scenario, connections, 'bare');
  const p50Difference = (a: Measurement, b: Measurement): number => a.load.latency.p50 - b.load.latency.p50;
  const overBare = pairedMedian(gateway, bare, p50Difference);
  return check({
    name: `${scenario} added p50 vs direct at ${connections} conn`,
    value: pairedMedian(gateway, direct, p50Difference),
    limit: addedP50LimitMs,
    kind: 'max',
    unit: 'ms',
    context: Number.isNaN(overBare) ? null : `vs bare proxy: ${formatSigned(overBare)} ms`,
  });
}

function firstByteCheck(run: BenchRun): Check {
  const gateway = run.firstByte.filter((m) => m.target === 'modelgate');
  const bare = run.firstByte.filter((m) => m.target === 'bare');
  return check({
    name: 'cross-stream first byte delay vs bare proxy at 1 conn',
    value: pairedMedian(gateway, bare, (a, b) => a.result.p50 - b.result.p50),
    limit: firstByteLimitMs,
    kind: 'max',
    unit: 'ms',
    context: null,
  });
}

function formatSigned(value: number): string {
  return (value >= 0 ? '+' : '') + value.toFixed(3);
}

function check(figures: Omit<Check, 'pass'>): Check {
  const { value, limit, kind } = figures;
  const pass = Number.isNaN(value) ? null : kind === 'min' ? value >= limit : value <= limit;
  return { ...figures, pass };
}
