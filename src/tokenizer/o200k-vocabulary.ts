/**
 * o200k_base's vocabulary in typed arrays (4.2 MB all told: 1.4 MB of token bytes, 0.8 MB of
 * offsets, a 2 MB hash table) instead of gpt-tokenizer's 2.2 MB array literal and its
 * 200,000-entry `Map<string, rank>`, which left ~65 MiB of RSS behind that the process never
 * returns (figures in bench/README.md, "The tokenizer's memory").
 *
 * Source: `gpt-tokenizer/data/o200k_base.tiktoken`, the file gpt-tokenizer's own rank table is
 * generated from (one `base64(token bytes) rank` per line, ranks 0…199,997 in order), read from the
 * installed package so the two can never drift apart; o200k-vocabulary.test.ts checks every rank's
 * bytes against the library's table. Parsed straight from the file's bytes (no string per line),
 * once, and nothing of it stays but the arrays below.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface Vocabulary {
  /** Every token's bytes, back to back, in rank order. */
  readonly bytes: Uint8Array;
  /** Token `rank` is `bytes[offsets[rank] … offsets[rank + 1])`; `rankCount + 1` entries. */
  readonly offsets: Uint32Array;
  readonly rankCount: number;
  /** Open addressing, linear probing: slot → rank, -1 when empty; `tableMask + 1` slots. */
  readonly table: Int32Array;
  readonly tableMask: number;
  /** The rank of each single byte (all 256 are tokens in o200k_base). */
  readonly byteRanks: Int32Array;
}

const dataFile = new URL(import.meta.resolve('gpt-tokenizer/data/o200k_base.tiktoken'));

/** 2^19 slots for ~200,000 ranks: a load of 0.38 keeps probes short (2 MiB). */
const tableBits = 19;

/** FNV-1a over `bytes[start … end)`: the table's key hash, here and in the encoder's lookups. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ (bytes[index] as number), 0x01000193);
  return hash;
}

/** The table slot to start probing at for a hash (its bits folded, FNV's low bits are weak). */
export function slotOf(hash: number, mask: number): number {
  return (hash ^ (hash >>> 15)) & mask;
}

const base64Values = (() => {
  const values = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
  return values;
})();

/**
 * Calls `line(chunk, start, end)` for each line of the file, read in 64 KiB chunks: no transient
 * buffer the size of the file (3.6 MB; read whole and freed, it left 4 MiB of RSS behind).
 */
function forEachLine(path: URL, line: (chunk: Uint8Array, start: number, end: number) => void): void {
  const chunk = new Uint8Array(64 * 1024);
  const descriptor = openSync(path, 'r');
  try {
    let filled = 0;
    for (;;) {
      const read = readSync(descriptor, chunk, filled, chunk.length - filled, null);
      filled += read;
      let start = 0;
      for (
        let index = chunk.indexOf(10, start);
        index !== -1 && index < filled;
        index = chunk.indexOf(10, start)
      ) {
        line(chunk, start, index);
        start = index + 1;
      }
      if (read === 0) {
        if (start < filled) line(chunk, start, filled);
        return;
      }
      if (start === 0 && filled === chunk.length) throw new Error('o200k_base.tiktoken: a line over 64 KiB');
      chunk.copyWithin(0, start, filled);
      filled -= start;
    }
  } finally {
    closeSync(descriptor);
  }
}

/** The space between a line's base64 and its rank. */
function spaceIn(chunk: Uint8Array, start: number, end: number): number {
  const space = chunk.indexOf(32, start);
  if (space === -1 || space >= end) throw new Error('o200k_base.tiktoken: a line without a rank');
  return space;
}

/** Decodes base64 `chunk[start … end)` into `out` from `at`; the new end (no `out`: only counts). */
function decodeBase64(
  chunk: Uint8Array,
  start: number,
  end: number,
  out: Uint8Array | undefined,
  at: number,
): number {
  let bits = 0;
  let bitCount = 0;
  let written = at;
  for (let index = start; index < end; index++) {
    const code = chunk[index] as number;
    if (code === 61) break; // '=' padding ends it
    const value = base64Values[code] as number;
    if (value < 0) throw new Error(`o200k_base.tiktoken: bad base64 character ${code}`);
    bits = ((bits << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      if (out !== undefined) out[written] = (bits >>> bitCount) & 0xff;
      written++;
    }
  }
  return written;
}

/**
 * Parses the `.tiktoken` file in two passes (sizes, then contents) so that every array is made at
 * its final size; ranks are checked to run 0, 1, 2, …
 */
function parseTiktoken(path: URL): { bytes: Uint8Array; offsets: Uint32Array; rankCount: number } {
  let rankCount = 0;
  let byteCount = 0;
  forEachLine(path, (chunk, start, end) => {
    if (end === start) return;
    byteCount = decodeBase64(chunk, start, spaceIn(chunk, start, end), undefined, byteCount);
    rankCount++;
  });
  const bytes = new Uint8Array(byteCount);
  const offsets = new Uint32Array(rankCount + 1);
  let rank = 0;
  forEachLine(path, (chunk, start, end) => {
    if (end === start) return;
    const space = spaceIn(chunk, start, end);
    let declared = 0;
    for (let index = space + 1; index < end; index++)
      declared = declared * 10 + (chunk[index] as number) - 48;
    if (declared !== rank || rank >= rankCount)
      throw new Error(`o200k_base.tiktoken: rank ${declared} where ${rank} was expected`);
    offsets[rank + 1] = decodeBase64(chunk, start, space, bytes, offsets[rank] as number);
    rank++;
  });
  return { bytes, offsets, rankCount };
}

function buildTable(bytes: Uint8Array, offsets: Uint32Array, rankCount: number): Int32Array {
  const table = new Int32Array(1 << tableBits).fill(-1);
  const mask = table.length - 1;
  for (let rank = 0; rank < rankCount; rank++) {
    let slot = slotOf(hashBytes(bytes, offsets[rank] as number, offsets[rank + 1] as number), mask);
    while (table[slot] !== -1) slot = (slot + 1) & mask;
    table[slot] = rank;
  }
  return table;
}

export function loadVocabulary(path: URL = dataFile): Vocabulary {
  const { bytes, offsets, rankCount } = parseTiktoken(path);
  const table = buildTable(bytes, offsets, rankCount);
  const byteRanks = new Int32Array(256).fill(-1);
  for (let rank = 0; rank < rankCount; rank++) {
    const start = offsets[rank] as number;
    if ((offsets[rank + 1] as number) - start === 1) byteRanks[bytes[start] as number] = rank;
  }
  if (byteRanks.includes(-1)) throw new Error('o200k_base.tiktoken: a single byte has no token');
  return { bytes, offsets, rankCount, table, tableMask: table.length - 1, byteRanks };
}
