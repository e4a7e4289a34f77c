/**
 * o200k_base byte-pair encoding over the compact vocabulary (o200k-vocabulary.ts), token for token
 * what gpt-tokenizer gives with special-token strings as plain text (`disallowedSpecial: new Set()`),
 * which byte-pair-encoder.test.ts checks on a large corpus. It follows gpt-tokenizer's
 * BytePairEncodingCore step by step:
 *   1. the text is split by o200k's pre-tokenizer (the library's own regular expression);
 *   2. a match that is a token as a whole is that token — looked up by its UTF-8 bytes; the library
 *      looks the *string* up, which no string with a lone surrogate can equal, so such a match
 *      always takes step 3 (its lone surrogates become U+FFFD's bytes, as TextEncoder writes them);
 *   3. else the bytes are merged pairwise, the lowest-ranked adjacent pair first (the leftmost of
 *      equal ranks), until no adjacent pair is a token; recent merges are remembered by match.
 *      Pairs are looked up the library's way, byte order mark quirk included (`libraryRank`).
 * The merge runs on typed arrays (a scan per merge for short matches, a heap of candidate pairs
 * above 64 bytes) and allocates nothing but the merge cache's entries.
 */
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { hashBytes, loadVocabulary, slotOf, type Vocabulary } from './o200k-vocabulary.ts';

/** o200k_base's special tokens: never produced from text here, but decoded like the library does. */
const specialTokens = new Map<number, string>([
  [199_999, '<|endoftext|>'],
  [200_000, '<|fim_prefix|>'],
  [200_001, '<|fim_middle|>'],
  [200_002, '<|fim_suffix|>'],
  [200_003, '<|im_start|>'],
  [200_004, '<|im_end|>'],
  [200_005, '<|im_sep|>'],
  [200_006, '<|endofprompt|>'],
]);

const split = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
const noRank = 0x7fffffff;

let vocabulary: Vocabulary | undefined;
// The vocabulary's arrays, hoisted once loaded (the lookups are the hot loop).
let tokenBytes: Uint8Array = new Uint8Array(0);
let offsets: Uint32Array = new Uint32Array(0);
let table: Int32Array = new Int32Array(0);
let tableMask = 0;
let byteRanks: Int32Array = new Int32Array(0);

/** Loads the vocabulary (synchronous, 50–340 ms measured) unless loaded; the first count does too. */
export function loadTokenizer(): void {
  if (vocabulary !== undefined) return;
  vocabulary = loadVocabulary();
  ({ bytes: tokenBytes, offsets, table, tableMask, byteRanks } = vocabulary);
}

/** The match being encoded, as UTF-8; grown for longer matches. */
let scratch = new Uint8Array(2048);
/** Set by `writeUtf8`: false when the match held a lone surrogate. */
let wellFormed = true;

/** Writes `text[start … end)` as UTF-8 into `scratch` (lone surrogates as U+FFFD); its length. */
function writeUtf8(text: string, start: number, end: number): number {
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
function exactRank(start: number, end: number): number {
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

function startsWithByteOrderMark(start: number, end: number): boolean {
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
function libraryRank(start: number, end: number): number {
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

// The merge's state: part i is scratch[starts[i] … starts[i + 1]), its token parts[i], and
// pairRanks[i] the rank of parts i and i + 1 together.
let starts = new Int32Array(2049);
let parts = new Int32Array(2049);
let pairRanks = new Int32Array(2049);

/** The rank of parts `at` and `at + 1` together, of `count` starts (parts + 1). */
function pairRank(at: number, count: number): number {
  return at + 2 < count ? libraryRank(starts[at] as number, starts[at + 2] as number) : noRank;
}

/**
 * Above this many bytes the merge keeps its candidate pairs in a heap (n log n) rather than scanning
 * them all for each merge (n²): a 512-character piece of random Han is 1,536 bytes.
 */
const heapMergeBytes = 64;

/** Byte-pair merges `scratch[0 … length)`; the tokens are `parts[0 … returned)`. */
function merge(length: number): number {
  if (length > heapMergeBytes) return heapMerge(length);
  if (starts.length <= length) {
    starts = new Int32Array(length + 1);
    parts = new Int32Array(length + 1);
    pairRanks = new Int32Array(length + 1);
  }
  for (let index = 0; index < length; index++) {
    starts[index] = index;
    parts[index] = byteRanks[scratch[index] as number] as number;
  }
  starts[length] = length;
  let count = length + 1;
  for (let index = 0; index < count; index++) pairRanks[index] = pairRank(index, count);
  while (count > 1) {
    let lowest = noRank;
    let at = -1;
    for (let index = 0; index < count - 1; index++) {
      const rank = pairRanks[index] as number;
      if (rank < lowest) {
        lowest = rank;
        at = index;
      }
    }
    if (at === -1) break;
    parts[at] = lowest;
    starts.copyWithin(at + 1, at + 2, count);
    parts.copyWithin(at + 1, at + 2, count);
    pairRanks.copyWithin(at, at + 1, count);
    count--;
    pairRanks[at] = pairRank(at, count);
    if (at > 0) pairRanks[at - 1] = pairRank(at - 1, count);
  }
  return count - 1;
}

// The heap merge's state, by byte position: a part starting at i ends at next[i] (prev[i] the
// part before it), is token partRanks[i], and pairAt[i] is the rank of it and the next part
// together. The heap holds (rank, start) candidates, lowest rank first and leftmost among equals,
// the order the scan above picks; a candidate whose rank is no longer pairAt[start] is stale.
let next = new Int32Array(0);
let prev = new Int32Array(0);
let partRanks = new Int32Array(0);
let pairAt = new Int32Array(0);
let heapRanks = new Int32Array(0);
let heapStarts = new Int32Array(0);
let heapSize = 0;

function heapBefore(a: number, b: number): boolean {
  const rankA = heapRanks[a] as number;
  const rankB = heapRanks[b] as number;
  return rankA < rankB || (rankA === rankB && (heapStarts[a] as number) < (heapStarts[b] as number));
}

function heapSwap(a: number, b: number): void {
  const rank = heapRanks[a] as number;
  const start = heapStarts[a] as number;
  heapRanks[a] = heapRanks[b] as number;
  heapStarts[a] = heapStarts[b] as number;
  heapRanks[b] = rank;
  heapStarts[b] = start;
}

function heapPush(rank: number, start: number): void {
  if (rank === noRank) return;
  let at = heapSize++;
  heapRanks[at] = rank;
  heapStarts[at] = start;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!heapBefore(at, parent)) break;
    heapSwap(at, parent);
    at = parent;
  }
}

/** Removes the first candidate into heapRanks/heapStarts[heapSize] (read it there). */
function heapPop(): void {
  heapSize--;
  heapSwap(0, heapSize);
  for (let at = 0; ;) {
    const left = 2 * at + 1;
    if (left >= heapSize) break;
    const right = left + 1;
    const first = right < heapSize && heapBefore(right, left) ? right : left;
    if (!heapBefore(first, at)) break;
    heapSwap(first, at);
    at = first;
  }
}

/** The rank of the part at `start` and the part after it together, or noRank at the end. */
function pairFrom(start: number, length: number): number {
  const middle = next[start] as number;
  return middle < length ? libraryRank(start, next[middle] as number) : noRank;
}

/** `merge` for long inputs: the same merges in the same order, with a heap of candidate pairs. */
function heapMerge(length: number): number {
  if (next.length <= length) {
    const size = length + 1;
    [next, prev, partRanks, pairAt] = [
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
    ];
    // Each merge pushes at most two candidates: the first n, then two per merge (≤ n merges).
    [heapRanks, heapStarts] = [new Int32Array(3 * size), new Int32Array(3 * size)];
  }
  heapSize = 0;
  for (let index = 0; index < length; index++) {
    next[index] = index + 1;
    prev[index] = index - 1;
    partRanks[index] = byteRanks[scratch[index] as number] as number;
  }
  for (let index = 0; index < length; index++) {
    pairAt[index] = pairFrom(index, length);
    heapPush(pairAt[index] as number, index);
  }
  while (heapSize > 0) {
    heapPop();
    const rank = heapRanks[heapSize] as number;
    const start = heapStarts[heapSize] as number;
    if (pairAt[start] !== rank) continue;
    const gone = next[start] as number;
    const after = next[gone] as number;
    partRanks[start] = rank;
    next[start] = after;
    if (after < length) prev[after] = start;
    pairAt[gone] = noRank;
    pairAt[start] = pairFrom(start, length);
    heapPush(pairAt[start], start);
    const before = prev[start] as number;
    if (before >= 0) {
      pairAt[before] = pairFrom(before, length);
      heapPush(pairAt[before], before);
    }
  }
  let count = 0;
  for (let start = 0; start < length; start = next[start] as number)
    parts[count++] = partRanks[start] as number;
  return count;
}

/**
 * Recent merges by match (most words are one token and never get here). Bounded so the cache
 * stays well under a MiB: long CJK or symbol runs would otherwise pile up.
 */
const mergeCache = new Map<string, readonly number[]>();
const mergeCacheEntries = 4_096;

/** The tokens of the match `key` (its UTF-8 in `scratch[0 … length)`), not a token as a whole. */
function mergedTokens(key: string, length: number): readonly number[] {
  const known = mergeCache.get(key);
  if (known !== undefined) return known;
  const tokenCount = merge(length);
  const tokens = Array.from(parts.subarray(0, tokenCount));
  if (mergeCache.size >= mergeCacheEntries) mergeCache.delete(mergeCache.keys().next().value as string);
  mergeCache.set(key, tokens);
  return tokens;
}

/**
 * Calls `each(token)` for every token of `text`, or counts them when `each` is absent. One loop for
 * both, so counting and encoding cannot disagree.
 */
function run(text: string, each?: (token: number) => void): number {
  loadTokenizer();
  let counted = 0;
  split.lastIndex = 0;
  for (let match = split.exec(text); match !== null; match = split.exec(text)) {
    const length = writeUtf8(text, match.index, match.index + match[0].length);
    // The library looks a match up as a string first: no key has a lone surrogate or a leading BOM.
    const whole = wellFormed && !startsWithByteOrderMark(0, length) ? exactRank(0, length) : noRank;
    if (whole !== noRank) {
      counted++;
      each?.(whole);
      continue;
    }
    const tokens = mergedTokens(match[0], length);
    counted += tokens.length;
    if (each !== undefined) for (const token of tokens) each(token);
  }
  return counted;
}

/** The number of o200k_base tokens in `text` (special-token strings counted as plain text). */
export function countBpeTokens(text: string): number {
  return run(text);
}

/** Appends the o200k_base tokens of `text` to `into`. */
export function encodeBpe(text: string, into: number[]): void {
  run(text, (token) => into.push(token));
}

// A byte order mark is text here: the library's decoder drops a leading one, a round trip should not.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The text of `tokens`. Like gpt-tokenizer for every sequence of whole characters; where the bytes
 * end inside a character, this gives U+FFFD (gpt-tokenizer's shared streaming decoder would carry
 * those bytes into its next call instead). An unknown token throws, as in the library.
 */
export function decodeBpe(tokens: readonly number[]): string {
  loadTokenizer();
  let decoded = '';
  let buffer = new Uint8Array(256);
  let filled = 0;
  for (const token of tokens) {
    if (Number.isInteger(token) && token >= 0 && token < offsets.length - 1) {
      const from = offsets[token] as number;
      const to = offsets[token + 1] as number;
      if (filled + to - from > buffer.length) {
        const grown = new Uint8Array(Math.max(buffer.length * 2, filled + to - from));
        grown.set(buffer.subarray(0, filled));
        buffer = grown;
      }
      buffer.set(tokenBytes.subarray(from, to), filled);
      filled += to - from;
      continue;
    }
    const special = specialTokens.get(token);
    if (special === undefined) throw new Error(`Token ${token} is not in the byte pair encoder.`);
    decoded += utf8.decode(buffer.subarray(0, filled)) + special;
    filled = 0;
  }
  return decoded + utf8.decode(buffer.subarray(0, filled));
}
