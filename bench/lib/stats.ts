/** Small order statistics over plain number arrays (latencies in ms, round results). */

/** Nearest-rank percentile (0 < p <= 100) of values already sorted ascending; NaN when empty. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  // The epsilon keeps float rounding (99.9 / 100 × 1000 = 999.0000000000001) from skipping a rank.
  const rank = Math.ceil((p / 100) * sorted.length - 1e-9);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index] ?? Number.NaN;
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** Median of a few round results (mean of the middle two when even); NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  if (sorted.length % 2 === 1) return upper;
  return ((sorted[middle - 1] ?? upper) + upper) / 2;
}
