/**
 * The vocabulary as the byte-pair merge reads it: loaded once, its arrays hoisted (the lookups are
 * the merge's hot loop), the match being encoded written as UTF-8 into one shared scratch buffer,
 * and the rank of a run of that buffer's bytes — exactly (`exactRank`) and the way gpt-tokenizer
 * finds it (`libraryRank`, byte order mark quirk included). See byte-pair-encoder.ts for the steps.
 */
import { hashBytes, loadVocabulary, slotOf, type Vocabulary } from './o200k-vocabulary.ts';

/** No token: higher than every rank. */
export const noRank = 0x7fffffff;

let vocabulary: Vocabulary | undefined;
// The vocabulary's arrays, hoisted once loaded (the lookups are the hot loop).
export let tokenBytes: Uint8Array = new Uint8Array(0);
export let offsets: Uint32Array = new Uint32Array(0);
let table: Int32Array = new Int32Array(0);
let tableMask = 0;
export let byteRanks: Int32Array = new Int32Array(0);

/** Loads the vocabulary (synchronous, 50–340 ms measured) unless loaded; the first count does too. */
export function loadTokenizer(): void {
  if (vocabulary !== undefined) return;
  vocabulary = loadVocabulary();
  ({ bytes: tokenBytes, offsets, table, tableMask, byteRanks } = vocabulary);
}

/** The match being encoded, as UTF-8; grown for longer matches. */
export let scratch = new Uint8Array(2048);
/** Set by `writeUtf8`: false when the match held a lone surrogate. */
export let wellFormed = true;

/** Writes `text[start … end)` as UTF-8 into `scratch` (lone surrogates as U+FFFD); its length. */
export function writeUtf8(text: string, start: number, end: number): number {
  if (scratch.length < (end - start) * 3) scratch = new Uint8Array((end - start) * 3);
  const out = scratch;
  let at = 0;
  wellFormed = true;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      out[at++] = code;
    } else if (code < 0x800) {
      out[at++] = 0xc0 | (code >> 6);
      out[at++] = 0x80 | (code & 0x3f);
    } else if (code < 0xd800 || code > 0xdfff) {
      out[at++] = 0xe0 | (code >> 12);
      out[at++] = 0x80 | ((code >> 6) & 0x3f);
      out[at++] = 0x80 | (code & 0x3f);
    } else {
      const next = index + 1 < end ? text.charCodeAt(index + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        out[at++] = 0xf0 | (point >> 18);
        out[at++] = 0x80 | ((point >> 12) & 0x3f);
        out[at++] = 0x80 | ((point >> 6) & 0x3f);
        out[at++] = 0x80 | (point & 0x3f);
        index++;
      } else {
        wellFormed = false;
        out[at++] = 0xef;
        out[at++] = 0xbf;
        out[at++] = 0xbd;
      }
    }
  }
  return at;
}

/** The rank of the token that is exactly the bytes `scratch[start … end)`, or `noRank`. */
export function exactRank(start: number, end: number): number {
  const length = end - start;
  const bytes = scratch;
  for (let slot = slotOf(hashBytes(bytes, start, end), tableMask); ; slot = (slot + 1) & tableMask) {
    const rank = table[slot] as number;
    if (rank === -1) return noRank;
    const from = offsets[rank] as number;
    if ((offsets[rank + 1] as number) - from !== length) continue;
    let index = 0;
    while (index < length && tokenBytes[from + index] === bytes[start + index]) index++;
    if (index === length) return rank;
  }
}

export function startsWithByteOrderMark(start: number, end: number): boolean {
  return (
    end - start >= 3 && scratch[start] === 0xef && scratch[start + 1] === 0xbb && scratch[start + 2] === 0xbf
  );
}

/**
 * The rank gpt-tokenizer finds for the bytes `scratch[start … end)`, quirk included: it files a
 * token as a string when its bytes decode (TextDecoder) and re-encode to themselves, and looks bytes
 * up as the string they decode to when they are valid UTF-8. TextDecoder drops a leading U+FEFF
 * (byte order mark), so the nine tokens that start with one (`\uFEFFusing`, …) are filed as bytes
 * and never found, and valid bytes that start with one find the token of the bytes after it.
 * Without the mark this is `exactRank`.
 */
export function libraryRank(start: number, end: number): number {
  if (!startsWithByteOrderMark(start, end) || !isValidUtf8(start, end)) return exactRank(start, end);
  const rest = start + 3;
  return rest === end || startsWithByteOrderMark(rest, end) ? noRank : exactRank(rest, end);
}

/** gpt-tokenizer's `isValidUTF8` on `scratch[start … end)` (no overlongs, surrogates, > U+10FFFF). */
function isValidUtf8(start: number, end: number): boolean {
  for (let index = start; index < end;) {
    const lead = scratch[index] as number;
    const size =
      lead <= 0x7f
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : (lead & 0xf0) === 0xe0
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (size === 0 || index + size > end) return false;
    let point = size === 1 ? lead : lead & (0xff >> (size + 1));
    for (let next = 1; next < size; next++) {
      const byte = scratch[index + next] as number;
      if ((byte & 0xc0) !== 0x80) return false;
      point = (point << 6) | (byte & 0x3f);
    }
    const shortest = size === 2 ? 0x80 : size === 3 ? 0x800 : size === 4 ? 0x10000 : 0;
    if (point < shortest || (point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    index += size;
  }
  return true;
}
