import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Utf8Chunks } from './utf8-chunks.ts';

/**
 * The text of the whole body decoded at once: what `Utf8Chunks` must give for it in any chunks.
 * (A streaming TextDecoder is not the reference: node's drops a second byte-order mark when the
 * first one arrived split.)
 */
function expected(chunks: Uint8Array[]): string {
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

function decoded(chunks: Uint8Array[]): string {
  const decoder = new Utf8Chunks();
  return chunks.map((chunk) => decoder.decode(chunk)).join('') + decoder.end();
}

/** `bytes` cut at every pair of places. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [];
  for (let first = 0; first <= bytes.length; first++)
    for (let second = first; second <= bytes.length; second++)
      all.push([bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)]);
  return all;
}

const samples: Record<string, number[]> = {
  'multi-byte characters': [...Buffer.from('data: {"a":"é€😀"}\n\n')],
  'a byte-order mark opening the stream': [0xef, 0xbb, 0xbf, ...Buffer.from('data: x\n\n')],
  'a byte-order mark inside the text': [...Buffer.from('data: '), 0xef, 0xbb, 0xbf, 0x0a],
  'two byte-order marks': [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41],
  'invalid bytes': [0x41, 0xff, 0xc3, 0x41, 0xe2, 0x82, 0x0a, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80],
  'an unfinished character at the end': [0x41, 0xf0, 0x9f, 0x98],
};

for (const [name, bytes] of Object.entries(samples)) {
  test(`the text of the whole body, however its bytes are split: ${name}`, () => {
    for (const chunks of splits(Uint8Array.from(bytes))) {
      assert.equal(decoded(chunks), expected(chunks), chunks.map((chunk) => chunk.length).join(','));
    }
  });
}

test('an empty body gives no text', () => {
  assert.equal(new Utf8Chunks().end(), '');
});
