import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { isSafeCut, nextCut, segmentOffsets } from './segments.ts';

const plain = { disallowedSpecial: new Set<string>() };

/** Seeded, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

// Every kind the split pattern distinguishes, and the pairs it treats specially.
const alphabet = [
  'a',
  'B',
  'é',
  'e\u0301',
  '1',
  '23',
  '4567',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '!',
  '?',
  '/',
  '.',
  ',',
  "'",
  "'s",
  "'LL",
  '一',
  '，',
  '🙂',
  '\u00a0',
  '\u3000',
  '-',
  '"',
  ':',
  '{',
  'ह',
  'ि',
  '٣',
  'Ⅻ',
  '<|endoftext|>',
];

test('pieces cut at safe cuts count exactly as the whole text (fuzzed against the real BPE)', () => {
  const next = random(7);
  let checked = 0;
  for (let trial = 0; trial < 20_000; trial++) {
    let text = '';
    const length = 1 + Math.floor(next() * 40);
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(next() * alphabet.length)] ?? '';
    const maxChars = 2 + Math.floor(next() * 10);
    const pieces = segmentOffsets(text, maxChars);
    if (pieces.some(([, end]) => end < text.length && !isSafeCut(text, end))) continue; // a hard cut
    checked++;
    let sum = 0;
    for (const [start, end] of pieces) sum += countTokens(text.slice(start, end), plain);
    assert.equal(sum, countTokens(text, plain), JSON.stringify(text));
  }
  assert.ok(checked > 5_000, `only ${checked} texts without a hard cut`);
});

test('pieces cover the text in order, within the cap, never splitting a surrogate pair', () => {
  const next = random(11);
  for (let trial = 0; trial < 2_000; trial++) {
    let text = '';
    for (let index = 0; index < 60; index++) text += alphabet[Math.floor(next() * alphabet.length)] ?? '';
    const maxChars = 2 + Math.floor(next() * 6);
    let expected = 0;
    for (const [start, end] of segmentOffsets(text, maxChars)) {
      assert.equal(start, expected);
      assert.ok(end > start && end - start <= maxChars + 1);
      const code = text.charCodeAt(end);
      assert.ok(!(code >= 0xdc00 && code <= 0xdfff), 'cut inside a surrogate pair');
      expected = end;
    }
    assert.equal(expected, text.length);
  }
});

test('a long run of one kind is cut hard at the cap; ordinary text at a word end before it', () => {
  assert.equal(nextCut('x'.repeat(2_000), 0), 512);
  const prose = 'word '.repeat(300);
  const cut = nextCut(prose, 0);
  assert.ok(cut <= 512 && cut > 500 && isSafeCut(prose, cut));
  assert.equal(nextCut('short', 0), 5);
});
