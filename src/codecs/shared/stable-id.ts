/**
 * Deterministic ids for things a family leaves unnamed (C function calls): the same upstream
 * answer always yields the same ids, streamed or not, so transcripts are reproducible and a
 * client that replays history replays the same ids (which keeps B prompt-cache prefixes stable).
 */

/** 32-bit FNV-1a over UTF-16 code units, continuing from `seed`. */
function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let position = 0; position < text.length; position++) {
    hash ^= text.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** `prefix` + 16 hex digits derived from `parts` (two independent 32-bit hashes). */
export function stableId(prefix: string, ...parts: ReadonlyArray<string | number>): string {
  const text = parts.join('\u0000');
  const high = fnv1a(text, 0x811c9dc5).toString(16).padStart(8, '0');
  const low = fnv1a(text, 0x050c5d1f).toString(16).padStart(8, '0');
  return `${prefix}${high}${low}`;
}
