/**
 * `node bench/count-tokens.ts`: the token count path, gpt-tokenizer's o200k_base (what modelgate
 * counted with before, in the same 512-character pieces, special tokens as text) against
 * `countTextTokens` (the compact vocabulary, byte-pair-encoder.ts), interleaved, memos bypassed
 * (every text is new, or too long to be memoised; gpt-tokenizer's merge cache stays on, as it ran).
 * Prints µs per call, the ratio, and both counts, which must be equal.
 */
import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens, loadTokenizer } from '../src/tokenizer/count-tokens.ts';
import { nextCut } from '../src/tokenizer/segments.ts';

const root = new URL('..', import.meta.url);
const prose =
  readFileSync(new URL('README.md', root), 'utf8') + readFileSync(new URL('ARCHITECTURE.md', root), 'utf8');
const code = readFileSync(new URL('src/gateway/deliver.ts', root), 'utf8');
const chinese = '模型网关在请求被接受之前计算每个提示的令牌数，任何提示都不能长时间占用事件循环。'.repeat(
  200,
);
/** Seeded: the worst case for the merge (one pre-token per piece, every pair looked up). */
function randomText(from: number, span: number, length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    text += String.fromCharCode(from + (state % span));
  }
  return text;
}

const plain = { disallowedSpecial: new Set<string>() };
/** modelgate's count before: gpt-tokenizer piece by piece, the memo in front. */
const oldMemo = new Map<string, number>();
function countBefore(text: string): number {
  if (text.length === 0) return 0;
  const known = oldMemo.get(text);
  if (known !== undefined) return known;
  let counted = 0;
  for (let from = 0; from < text.length;) {
    const cut = nextCut(text, from);
    counted += countTokens(text.slice(from, cut), plain);
    from = cut;
  }
  if (text.length <= 4_096) {
    if (oldMemo.size >= 1_000) oldMemo.delete(oldMemo.keys().next().value as string);
    oldMemo.set(text, counted);
  }
  return counted;
}

const cases: [string, (round: number) => string][] = [
  [
    'chat message (~200 chars, unique)',
    (round) => `Please summarise ticket #${round}: ${prose.slice(round % 5000, (round % 5000) + 200)}`,
  ],
  [
    'system prompt (~3 KB, unique)',
    (round) => `${round} ${prose.slice(round % 20_000, (round % 20_000) + 3_000)}`,
  ],
  ['document (README + ARCHITECTURE)', (round) => `${round}${prose}`],
  ['source file', (round) => `${round}${code}`],
  ['Chinese prose (8 KB)', (round) => `${round}${chinese}`],
  ['random Han (16 K chars)', (round) => randomText(0x4e00, 20_000, 16_000, round + 1)],
  ['random lowercase (16 K chars)', (round) => randomText(97, 26, 16_000, round + 1)],
];

const loadStarted = performance.now();
loadTokenizer();
console.log(`compact vocabulary loaded in ${(performance.now() - loadStarted).toFixed(0)} ms`);

function time(count: (text: string) => number, make: (round: number) => string, rounds: number): number {
  const texts = Array.from({ length: rounds }, (_, round) => make(round));
  const started = performance.now();
  for (const text of texts) count(text);
  return ((performance.now() - started) * 1000) / rounds;
}

for (const [name, make] of cases) {
  const length = make(0).length;
  const rounds = length > 10_000 ? 20 : length > 1_000 ? 300 : 2_000;
  const [before, after] = [countBefore(make(999_999)), countTextTokens(make(999_999))];
  if (before !== after) throw new Error(`${name}: ${before} tokens before, ${after} after`);
  const timesBefore: number[] = [];
  const timesAfter: number[] = [];
  for (let repeat = 0; repeat < 7; repeat++) {
    // Fresh texts for each side and repeat: the memos never answer.
    timesBefore.push(time(countBefore, (round) => make(round + repeat * 200_000), rounds));
    timesAfter.push(time(countTextTokens, (round) => make(round + repeat * 200_000 + 100_000), rounds));
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[3] ?? 0;
  const [b, a] = [median(timesBefore), median(timesAfter)];
  const perChar = (micros: number): string => `${((micros * 1000) / length).toFixed(0)} ns/char`;
  console.log(
    `${name.padEnd(34)} gpt-tokenizer ${b.toFixed(1).padStart(8)} µs (${perChar(b)})   compact ${a.toFixed(1).padStart(8)} µs (${perChar(a)})   compact/gpt ${(a / b).toFixed(2)}   ${after} tokens`,
  );
}
