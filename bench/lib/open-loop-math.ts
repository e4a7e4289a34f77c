/**
 * The pure parts of the open-loop mode: when each request is due, how many are due at a moment,
 * and how a cell's latencies and a run's reps become the added-latency figures. No clocks here, so
 * the tests can pin every number.
 */
import { median, percentileSorted, sortedCopy } from './stats.ts';

/** Milliseconds between two intended sends at `rate` requests a second. */
export function periodMs(rate: number): number {
  if (!(rate > 0)) throw new Error(`rate must be > 0, got ${rate}`);
  return 1000 / rate;
}

/** When request `index` (0-based, warm-up included) is due: a fixed schedule, never the last answer's time. */
export function intendedSendMs(startMs: number, index: number, rate: number): number {
  return startMs + index * periodMs(rate);
}

/** How many of `total` requests are due at `nowMs` (request i is due at start + i × period). */
export function dueCount(startMs: number, nowMs: number, rate: number, total: number): number {
  if (nowMs < startMs) return 0;
  // The epsilon keeps a send due exactly "now" from slipping a period through float rounding.
  return Math.min(total, Math.floor((nowMs - startMs) / periodMs(rate) + 1e-9) + 1);
}

export interface RequestCounts {
  warmup: number;
  measured: number;
}

/** Requests in the warm-up and in the measured window at a rate. */
export function requestCounts(rate: number, warmupSeconds: number, seconds: number): RequestCounts {
  return { warmup: Math.round(warmupSeconds * rate), measured: Math.round(seconds * rate) };
}

export interface LatencySummary {
  count: number;
  /** Milliseconds, each from the intended send time. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Nearest-rank percentiles of latencies in ms; NaN fields when there are none. */
export function summarizeLatencies(latenciesMs: ArrayLike<number>): LatencySummary {
  const sorted = sortedCopy(latenciesMs);
  return {
    count: sorted.length,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    p999: percentileSorted(sorted, 99.9),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** One rep's figure for a target and for direct, taken in the same rep (so the machine's state is shared). */
export interface PairedFigure {
  target: number;
  direct: number;
}

/** Added latency over direct: the difference per rep first, then the median over reps. */
export function addedOverDirect(pairs: readonly PairedFigure[]): number {
  return median(pairs.map((pair) => pair.target - pair.direct));
}

/**
 * modelgate's added figure less the bare proxy's, per rep, then the median: the VM's own tail is in
 * both, so what remains is what modelgate adds on top of one Node hop.
 */
export function addedBeyondBare(gateway: readonly PairedFigure[], bare: readonly PairedFigure[]): number {
  const reps = Math.min(gateway.length, bare.length);
  const differences: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const ours = gateway[rep];
    const theirs = bare[rep];
    if (ours === undefined || theirs === undefined) continue;
    differences.push(ours.target - ours.direct - (theirs.target - theirs.direct));
  }
  return median(differences);
}
