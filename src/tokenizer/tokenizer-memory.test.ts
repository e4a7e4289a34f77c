import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

/**
 * A fresh process imports the tokenizer (so the TypeScript loader is in before the first reading),
 * reads its RSS, loads the vocabulary and counts ~2 MB of varied text, reads it again. Measured
 * on Node 24: +8–9 MiB (4.2 MB of arrays, the rest the merge cache, the memo and compiled code);
 * gpt-tokenizer measured the same way: +83 MiB. The bound is generous: a slip back to a
 * string-keyed map of 200,000 entries fails it, a noisy machine does not.
 */
const child = String.raw`
const settle = async () => { globalThis.gc(); await new Promise((r) => setTimeout(r, 50)); globalThis.gc(); };
const tokenizer = await import(process.argv[1]);
await settle();
const before = process.memoryUsage.rss();
tokenizer.loadTokenizer();
let counted = 0;
const texts = ['The quick brown fox jumps over the lazy dog. ', 'const x = { "key": [1, 2, 3] };\n', '模型网关计算令牌数。', '🙂 héllo wörld ', 'x'.repeat(700)];
for (let round = 0; round < 300; round++) for (const text of texts) counted += tokenizer.countTextTokens(round + text.repeat(8));
await settle();
console.log(JSON.stringify({ addedMiB: (process.memoryUsage.rss() - before) / 2 ** 20, counted }));
`;

test('the resident tokenizer stays small: under 25 MiB of RSS added (gpt-tokenizer: ~83)', (context) => {
  const output = execFileSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', child, new URL('count-tokens.ts', import.meta.url).href],
    { encoding: 'utf8' },
  );
  const { addedMiB, counted } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    addedMiB: number;
    counted: number;
  };
  assert.ok(counted > 100_000, `counted ${counted} tokens`);
  context.diagnostic(`the tokenizer added ${addedMiB.toFixed(1)} MiB of RSS`);
  assert.ok(addedMiB < 25, `the tokenizer added ${addedMiB.toFixed(1)} MiB of RSS`);
});
