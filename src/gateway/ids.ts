/**
 * Ids the gateway makes up (request ids, and response, message and call ids an upstream did not
 * give): the family's prefix and 18 random characters of [0-9a-z] (~93 bits). They were a
 * per-process stem plus a counter, which told anyone holding two ids how many requests fell in
 * between. Random bytes are drawn from the CSPRNG in batches, so an id costs no entropy call.
 */
import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
const idChars = 18;
/** Bytes at or above this are skipped: 252 = 7 × 36, so `byte % 36` is uniform below it. */
const unbiasedBelow = 252;
const batchBytes = 4096;

let pool = randomBytes(batchBytes);
let next = 0;

function randomByte(): number {
  if (next === pool.length) {
    pool = randomBytes(batchBytes);
    next = 0;
  }
  return pool[next++] ?? 0;
}

/** The id's characters, written here and read as one string: no string per character. */
const characters = Buffer.alloc(idChars);

export function generateId(prefix: string): string {
  let filled = 0;
  while (filled < idChars) {
    const byte = randomByte();
    if (byte < unbiasedBelow) characters[filled++] = alphabet.charCodeAt(byte % alphabet.length);
  }
  return prefix + characters.toString('latin1', 0, idChars);
}
