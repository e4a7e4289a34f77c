/**
 * Cheap deterministic randomness: the simulator must give the same reply for the same request on
 * every run and machine, so nothing here touches `Math.random` or the clock.
 */

/** 32-bit FNV-1a over UTF-16 code units, continuing from `seed`. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let position = 0; position < text.length; position++) {
    hash ^= text.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A small seeded PRNG (mulberry32): returns integers in [0, 2^32). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return (value ^ (value >>> 14)) >>> 0;
  };
}
