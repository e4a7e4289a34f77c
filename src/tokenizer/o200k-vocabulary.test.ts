import assert from 'node:assert/strict';
import { test } from 'node:test';
import libraryRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { tryConvertToString } from 'gpt-tokenizer/utfUtil';
import { hashBytes, loadVocabulary, slotOf } from './o200k-vocabulary.ts';

const vocabulary = loadVocabulary();
const encoder = new TextEncoder();

/** The bytes gpt-tokenizer's table holds for a rank: a string's UTF-8, or the byte list. */
function libraryBytes(entry: string | number[]): Uint8Array {
  return typeof entry === 'string' ? encoder.encode(entry) : Uint8Array.from(entry);
}

function ownBytes(rank: number): Uint8Array {
  return vocabulary.bytes.subarray(vocabulary.offsets[rank], vocabulary.offsets[rank + 1]);
}

test("every rank holds exactly the bytes of gpt-tokenizer's o200k_base table", () => {
  assert.equal(vocabulary.rankCount, libraryRanks.length);
  for (let rank = 0; rank < libraryRanks.length; rank++) {
    const entry = libraryRanks[rank];
    assert.ok(entry !== undefined, `the library has no rank ${rank}`);
    assert.deepEqual(ownBytes(rank), libraryBytes(entry), `rank ${rank}`);
  }
});

test('gpt-tokenizer files a token as a string exactly when it is valid UTF-8 without a leading BOM', () => {
  // byte-pair-encoder.ts's libraryRank relies on this rule: the library looks valid UTF-8 up
  // through its string map (tryConvertToString, which drops a leading U+FEFF) and anything else
  // through its byte list, so a lookup by bytes is the same but for the byte order mark.
  let filedAsBytesThoughValid = 0;
  for (let rank = 0; rank < libraryRanks.length; rank++) {
    const entry = libraryRanks[rank] as string | number[];
    const bytes = libraryBytes(entry);
    const valid = tryConvertToString(bytes) !== undefined;
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    assert.equal(typeof entry === 'string', valid && !bom, `rank ${rank}`);
    if (valid && bom) filedAsBytesThoughValid++;
  }
  assert.equal(filedAsBytesThoughValid, 9); // "\uFEFF", "\uFEFFusing", "\uFEFFnamespace", …
});

test('the hash table finds every rank by its bytes, and nothing else', () => {
  const { table, tableMask, bytes, offsets } = vocabulary;
  const find = (key: Uint8Array): number => {
    for (let slot = slotOf(hashBytes(key, 0, key.length), tableMask); ; slot = (slot + 1) & tableMask) {
      const rank = table[slot] as number;
      if (rank === -1) return -1;
      if (Buffer.compare(bytes.subarray(offsets[rank], offsets[rank + 1]), key) === 0) return rank;
    }
  };
  for (let rank = 0; rank < vocabulary.rankCount; rank++) assert.equal(find(ownBytes(rank)), rank);
  assert.equal(find(encoder.encode('definitely not one token at all')), -1);
  for (let byte = 0; byte < 256; byte++) {
    const rank = vocabulary.byteRanks[byte] as number;
    assert.deepEqual(ownBytes(rank), Uint8Array.of(byte));
  }
});
