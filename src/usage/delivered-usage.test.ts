import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamEvent } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { deliveredStream } from './delivered-usage.ts';
import { codecs } from '../../test/kit/spec-families.ts';

const words = ['Once', ' upon', ' a', ' time', ',', ' a', ' gateway', ' counted', ' every', ' token', '.'];

/** What the gateway wrote to a client of `family` before the stream was cut (no end event). */
function cutStream(family: 'alpha' | 'beta' | 'gamma', pieces: readonly string[]): string[] {
  const encoder = codecs[family].createStreamEncoder({
    model: 'm',
    includeUsage: true,
    legacyFunctions: false,
  });
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'x', model: 'm', created: 0 },
    { type: 'text-start', choice: 0, index: 0 },
    ...pieces.map((text): StreamEvent => ({ type: 'text-delta', choice: 0, index: 0, text })),
  ];
  return events.map((event) => encoder.encode(event)).filter((text) => text.length > 0);
}

test('a cut stream is counted from the text the client received, on every surface', () => {
  const expected = countTextTokens(words.join(''));
  for (const family of ['alpha', 'beta', 'gamma'] as const) {
    const written = cutStream(family, words);
    const chars = written.join('').length;
    assert.equal(deliveredStream(codecs[family], written, chars, chars).outputTokens, expected, family);
  }
});

test('past the kept part, the count is extrapolated by length', () => {
  const written = cutStream('beta', words);
  const chars = written.join('').length;
  const counted = deliveredStream(codecs.beta, written, chars, chars).outputTokens;
  assert.equal(deliveredStream(codecs.beta, written, chars, chars * 3).outputTokens, counted * 3);
});

test('garbage or a message cut in half costs nothing extra and throws nothing', () => {
  const written = cutStream('alpha', words);
  const half = [...written.slice(0, -1), written.at(-1)!.slice(0, 20)];
  const result = deliveredStream(codecs.alpha, half, 1, 1);
  assert.ok(result.outputTokens > 0 && result.outputTokens <= countTextTokens(words.join('')));
  assert.equal(deliveredStream(codecs.gamma, ['data: {nope\n\n'], 1, 1).outputTokens, 0);
});
