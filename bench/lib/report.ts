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
  const result: Check[] = [];
  for (const scenario of scenarios) {
    const gateway = cell(run.measurements, scenario.id, highConnections, 'modelgate');
    const bare = cell(run.measurements, scenario.id, highConnections, 'bare');
    const ratio = pairedMedian(gateway, bare, (a, b) => a.load.requestsPerSecond / b.load.requestsPerSecond);
    result.push(
      check(
        `${scenario.id} rps vs bare proxy at ${highConnections} conn`,
        ratio * 100,
        throughputTargets[scenario.id] * 100,
        'min',
        '%',
      ),
    );
  }
  for (const scenario of scenarios) {
    const gateway = cell(run.measurements, scenario.id, lowConnections, 'modelgate');
    const direct = cell(run.measurements, scenario.id, lowConnections, 'direct');
    const added = pairedMedian(gateway, direct, (a, b) => a.load.latency.p50 - b.load.latency.p50);
    result.push(
      check(
        `${scenario.id} added p50 vs direct at ${lowConnections} conn`,
        added,
        addedP50LimitMs,
        'max',
        'ms',
      ),
    );
  }
  const gatewayFirst = run.firstByte.filter((m) => m.target === 'modelgate');
  const bareFirst = run.firstByte.filter((m) => m.target === 'bare');
  const delay = pairedMedian(gatewayFirst, bareFirst, (a, b) => a.result.p50 - b.result.p50);
  result.push(check('stream first byte delay vs bare proxy at 1 conn', delay, firstByteLimitMs, 'max', 'ms'));
  return result;
}

function check(name: string, value: number, limit: number, kind: Check['kind'], unit: Check['unit']): Check {
  const pass = Number.isNaN(value) ? null : kind === 'min' ? value >= limit : value <= limit;
  return { name, value, limit, kind, unit, pass };
}
