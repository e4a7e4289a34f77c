import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens, decode } from 'gpt-tokenizer';
import { countTextTokens, encodeText, fitsByBytes } from './count-tokens.ts';

const plain = { disallowedSpecial: new Set<string>() };

test('counts with the real BPE, the same on a repeat (memoised) as the first time', () => {
  for (const text of [
    '',
    'Hello, world!',
    'héllo 世界 🙂',
    'x'.repeat(5000),
    'Be brief.',
    'word '.repeat(3000),
  ]) {
    const expected = text === '' ? 0 : countTokens(text);
    assert.equal(countTextTokens(text), expected, JSON.stringify(text.slice(0, 20)));
    assert.equal(countTextTokens(text), expected, 'second call');
  }
});

test('the memo stays bounded and correct past its size', () => {
  for (let index = 0; index < 2_500; index++)
    assert.equal(countTextTokens(`text ${index}`), countTokens(`text ${index}`));
  assert.equal(countTextTokens('text 0'), countTokens('text 0'));
});

test('special-token strings in a prompt are plain text: counted, never an error', () => {
  const text = 'stop <|endoftext|> here <|im_start|>';
  assert.throws(() => countTokens(text)); // the library's default
  assert.equal(countTextTokens(text), countTokens(text, plain));
  assert.equal(decode(encodeText(text)), text);
});

test('long unbroken runs cost linear time (64,000 × "一" took 19 s as one piece)', () => {
  for (const unit of ['一', 'x', ' ', '!', '丁七万']) {
    const text = unit.repeat(Math.ceil(64_000 / unit.length));
    const started = performance.now();
    const counted = countTextTokens(text);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1_500, `${JSON.stringify(unit)}: ${elapsed.toFixed(0)} ms`);
    assert.ok(counted > 0 && counted <= Buffer.byteLength(text), `${JSON.stringify(unit)}: ${counted}`);
  }
  // A hard cut in a run of one letter changes nothing here: "x" × 8 is one token, 512 = 64 × 8.
  assert.equal(countTextTokens('x'.repeat(64_000)), 8_000);
});

test('encodeText round-trips and agrees with the count', () => {
  for (const text of ['plain words here', '一'.repeat(3_000), `${'ab'.repeat(700)} end`, '🙂'.repeat(600)]) {
    const tokens = encodeText(text);
    assert.equal(decode(tokens), text);
    assert.equal(tokens.length, countTextTokens(text));
  }
});

test('fitsByBytes never says yes when the count is larger', () => {
  for (const text of ['a', 'hello world '.repeat(50), '世界'.repeat(100), '🙂'.repeat(30)]) {
    const tokens = countTokens(text);
    if (fitsByBytes(text, tokens - 1)) assert.fail(`fitsByBytes(${tokens - 1}) for ${tokens} tokens`);
  }
});
