/** Cheap unique ids: a random per-process stem plus a counter (no entropy call per request). */
import { randomBytes } from 'node:crypto';

const stem = randomBytes(6).toString('hex');
let counter = 0;

export function generateId(prefix: string): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${stem}${counter.toString(36).padStart(6, '0')}`;
}
