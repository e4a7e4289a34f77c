/** Percentiles from the latency rollup's log bins (each reported as its bin's upper edge). */
import { binUpperMs } from '../usage/rollups.ts';

/** bin → count, for one point and metric. */
export type Histogram = Map<number, number>;

/** Adds `other`'s counts to `histogram`. */
export function addHistogram(histogram: Histogram, other: ReadonlyMap<number, number>): void {
  for (const [bin, count] of other) histogram.set(bin, (histogram.get(bin) ?? 0) + count);
}

/** The values at quantiles `qs` (ascending, 0..1), or nulls for an empty histogram: one pass. */
export function quantiles(histogram: Histogram | undefined, qs: readonly number[]): (number | null)[] {
  if (histogram === undefined || histogram.size === 0) return qs.map(() => null);
  let total = 0;
  for (const count of histogram.values()) total += count;
  const bins = [...histogram.keys()].sort((left, right) => left - right);
  const answers: (number | null)[] = [];
  let seen = 0;
  let position = 0;
  for (const q of qs) {
    const rank = Math.max(1, Math.ceil(q * total));
    while (position < bins.length && seen + (histogram.get(bins[position] as number) ?? 0) < rank) {
      seen += histogram.get(bins[position] as number) ?? 0;
      position++;
    }
    const bin = bins[Math.min(position, bins.length - 1)] as number;
    answers.push(Math.round(binUpperMs(bin) * 10) / 10);
  }
  return answers;
}

/** The value at quantile `q` (0..1), or null for an empty histogram. */
export function quantile(histogram: Histogram | undefined, q: number): number | null {
  return quantiles(histogram, [q])[0] ?? null;
}
