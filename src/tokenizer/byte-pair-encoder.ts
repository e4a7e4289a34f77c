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
 * above 64 bytes) and allocates nothing but the merge cache's entries. The vocabulary's lookups on a
 * match's bytes are match-bytes.ts.
 */
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import {
  byteRanks,
  exactRank,
  libraryRank,
  loadTokenizer,
  noRank,
  offsets,
  scratch,
  startsWithByteOrderMark,
  tokenBytes,
  wellFormed,
  writeUtf8,
} from './match-bytes.ts';

export { loadTokenizer } from './match-bytes.ts';

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
