/**
 * "Did you mean": an unknown key in the config file is named with the closest known key, so a
 * typo (`apikey`, `fallback`, `modles`) says what was meant instead of only what was refused.
 */
import { z } from 'zod';

/** Edits (insert, delete, substitute, swap two neighbours) between two keys, ignoring case. */
export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  const width = b.length + 1;
  // One flat table: distances[i * width + j] is the distance between a's first i and b's first j.
  const distances = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => distances[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) distances[i * width] = i;
  for (let j = 0; j <= b.length; j++) distances[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      distances[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The known key closest to `unknown`, if one is close enough to be a typo of it. */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const allowed = Math.max(2, Math.floor(unknown.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(unknown, key);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

/** `Unrecognized key "fetc" (did you mean "fetch"?)`, one clause per unknown key. */
export function unknownKeyMessage(keys: readonly string[], known: readonly string[]): string {
  return keys
    .map((key) => {
      const suggestion = closestKey(key, known);
      return (
        `Unrecognized key ${JSON.stringify(key)}` +
        (suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`)
      );
    })
    .join('; ');
}

/** A config section that refuses unknown keys, suggesting the closest of its own. */
export function strictSection<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape, z.core.$strict> {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeyMessage(issue.keys, known) : undefined),
  });
}
