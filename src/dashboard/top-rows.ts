/**
 * Dashboard tables are bounded: their rows are values clients choose (model names — any
 * `family/<id>` passes through — and keys), so a table shows the `maxTableRows` largest and sums
 * the rest into one "other" row, whatever the rollups hold.
 */
export const maxTableRows = 100;

/** The label of the row that sums the rest. */
export const otherRow = 'other';

/** The `max` rows of largest `weight` (ties by their order in `rows`), and the rest. */
export function topRows<T>(
  rows: readonly T[],
  weight: (row: T) => number,
  max: number = maxTableRows,
): { kept: T[]; rest: T[] } {
  if (rows.length <= max) return { kept: [...rows], rest: [] };
  const ranked = rows
    .map((row, index) => ({ row, index }))
    .sort((left, right) => weight(right.row) - weight(left.row) || left.index - right.index);
  const keptIndexes = new Set(ranked.slice(0, max).map((entry) => entry.index));
  return {
    kept: rows.filter((_, index) => keptIndexes.has(index)),
    rest: rows.filter((_, index) => !keptIndexes.has(index)),
  };
}
