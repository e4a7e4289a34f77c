import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens, fitsByBytes } from './count-tokens.ts';

test('counts with the real BPE, the same on a repeat (memoised) as the first time', () => {
  for (const text of ['', 'Hello, world!', 'héllo 世界 🙂', 'x'.repeat(5000), 'Be brief.']) {
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

test('fitsByBytes never says yes when the count is larger', () => {
  for (const text of ['a', 'hello world '.repeat(50), '世界'.repeat(100), '🙂'.repeat(30)]) {
    const tokens = countTokens(text);
    if (fitsByBytes(text, tokens - 1)) assert.fail(`fitsByBytes(${tokens - 1}) for ${tokens} tokens`);
  }
});
