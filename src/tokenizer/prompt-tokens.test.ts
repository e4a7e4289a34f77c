import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { defaultCountLimits, PromptTokens } from './prompt-tokens.ts';

const prose = 'The gateway counts every prompt before it is admitted, and no prompt may hold it. ';

test('ordinary prompts are counted exactly, text by text', async () => {
  const texts = ['You are terse.', prose.repeat(40), '', 'héllo 世界 🙂'];
  const expected = texts.reduce((sum, text) => sum + (text === '' ? 0 : countTokens(text)), 0);
  const result = await new PromptTokens(texts).count();
  assert.deepEqual(result, { tokens: expected, lower: expected, upper: expected, exact: true });
});

test('bounds come from bytes: 1 to 128 bytes a token', () => {
  const bounds = new PromptTokens(['一'.repeat(1000), 'ab']).bounds();
  assert.equal(bounds.upper, 3002);
  assert.equal(bounds.lower, Math.ceil(3002 / 128));
  assert.equal(bounds.exact, false);
});

test('counting stops past the threshold with a lower bound above it, and resumes when asked more', async () => {
  const prompt = new PromptTokens([prose.repeat(200), prose.repeat(200)]);
  const early = await prompt.count(100);
  assert.equal(early.exact, false);
  assert.ok(early.lower > 100 && early.lower < 1_000, String(early.lower));
  assert.ok(early.lower <= early.tokens && early.tokens <= early.upper);
  const full = await prompt.count();
  assert.equal(full.exact, true);
  assert.equal(full.tokens, 2 * countTokens(prose.repeat(200)));
});

test('past the work cap the rest is estimated at the counted tokens per byte, within the bounds', async () => {
  const text = prose.repeat(200); // ~17k characters
  const result = await new PromptTokens([text], { ...defaultCountLimits, maxChars: 2_000 }).count();
  const exact = countTokens(text);
  assert.equal(result.exact, false);
  assert.ok(result.lower < exact && exact < result.upper);
  assert.ok(Math.abs(result.tokens - exact) / exact < 0.05, `${result.tokens} vs ${exact}`);
});

test('a large count does not hold the gateway: a timer and a small concurrent count finish first', async () => {
  let state = 3;
  let text = '';
  for (let index = 0; index < 64_000; index++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    text += String.fromCharCode(0x4e00 + (state % 20_000));
  }
  // What another request sees while 64,000 random Han characters are counted: its timers fire
  // and its own small prompt is counted, both before the large count ends. An unsliced count
  // would finish first whatever the machine's speed.
  const finished: string[] = [];
  const large = new PromptTokens([text]).count().then((result) => {
    finished.push('large');
    return result;
  });
  const timer = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => finished.push('timer'));
  const small = new PromptTokens(['Hello there.']).count().then((result) => {
    finished.push('small');
    return result;
  });
  const [largeResult, , smallResult] = await Promise.all([large, timer, small]);
  assert.equal(largeResult.exact, true);
  assert.equal(smallResult.exact, true);
  assert.equal(smallResult.tokens, countTokens('Hello there.'));
  assert.equal(finished.at(-1), 'large', finished.join(', '));
});

test('countNow gives an ordinary prompt its exact count at once, and leaves a long one to count', async () => {
  const texts = ['You are terse.', prose.repeat(40)];
  const expected = texts.reduce((sum, text) => sum + countTokens(text), 0);
  assert.deepEqual(new PromptTokens(texts).countNow(), {
    tokens: expected,
    lower: expected,
    upper: expected,
    exact: true,
  });
  const long = new PromptTokens([prose.repeat(20_000)], { ...defaultCountLimits, firstMs: 0 });
  assert.equal(long.countNow(), undefined);
  // Past the work cap: estimated from the part counted in the slicer.
  const counted = await long.count();
  assert.equal(counted.exact, false);
  assert.ok(counted.lower > 0 && counted.lower <= counted.tokens && counted.tokens <= counted.upper);
});
