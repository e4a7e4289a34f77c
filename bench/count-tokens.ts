/**
 * `node bench/count-tokens.ts`: the token count path on ordinary text, the library's whole-text
 * count (what modelgate did before counting in pieces) against `countTextTokens` (pieces cut at safe
 * boundaries, special tokens as text), interleaved, memo bypassed (every text is new or too long
 * to be memoised). Prints µs per call, the ratio, and both counts (they differ only where a run of
 * one kind is longer than 512 characters: ARCHITECTURE.md's table rules and padding).
 */
import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from '../src/tokenizer/count-tokens.ts';

const root = new URL('..', import.meta.url);
// The old count threw on special-token strings (README quotes one): they are spaced out here.
const prose = (
  readFileSync(new URL('README.md', root), 'utf8') + readFileSync(new URL('ARCHITECTURE.md', root), 'utf8')
).replaceAll('<|', '< |');
const code = readFileSync(new URL('src/gateway/deliver.ts', root), 'utf8');
const chinese = '模型网关在请求被接受之前计算每个提示的令牌数，任何提示都不能长时间占用事件循环。'.repeat(
  200,
);

/** modelgate's count before counting in pieces: the memo in front of the library's whole-text count. */
const oldMemo = new Map<string, number>();
function countBefore(text: string): number {
  if (text.length === 0) return 0;
  if (text.length > 4_096) return countTokens(text);
  const known = oldMemo.get(text);
  if (known !== undefined) return known;
  const counted = countTokens(text);
  if (oldMemo.size >= 1_000) oldMemo.delete(oldMemo.keys().next().value as string);
  oldMemo.set(text, counted);
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
  ['document (README + ARCHITECTURE)', () => prose],
  ['source file', () => code],
  ['Chinese prose (8 KB)', () => chinese],
];

function time(count: (text: string) => number, make: (round: number) => string, rounds: number): number {
  const started = performance.now();
  for (let round = 0; round < rounds; round++) count(make(round));
  return ((performance.now() - started) * 1000) / rounds;
}

for (const [name, make] of cases) {
  const rounds = make(0).length > 10_000 ? 30 : 2_000;
  const counts = `${countTokens(make(1))} → ${countTextTokens(make(1))} tokens`;
  const before: number[] = [];
  const after: number[] = [];
  for (let repeat = 0; repeat < 9; repeat++) {
    // Fresh texts for each side and repeat: the memos never answer.
    before.push(time(countBefore, (round) => make(round + repeat * 200_000), rounds));
    after.push(time(countTextTokens, (round) => make(round + repeat * 200_000 + 100_000), rounds));
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[4] ?? 0;
  const [b, a] = [median(before), median(after)];
  console.log(
    `${name.padEnd(36)} before ${b.toFixed(1).padStart(8)} µs   after ${a.toFixed(1).padStart(8)} µs   after/before ${(a / b).toFixed(2)}   ${counts}`,
  );
}
