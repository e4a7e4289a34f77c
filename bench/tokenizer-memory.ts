/**
 * `node bench/tokenizer-memory.ts [runs]`: what the resident tokenizer costs a process, gpt-tokenizer
 * (o200k_base, what modelgate loaded before) against the compact vocabulary
 * (src/tokenizer/byte-pair-encoder.ts), each in fresh child processes, interleaved, medians shown.
 *
 * Each child first imports src/tokenizer/count-tokens.ts (code only: its vocabulary loads on
 * `loadTokenizer()`; and Node's type stripper is then loaded in every mode alike), collects garbage
 * and reads its RSS; then loads the tokenizer and counts one short text (ready), counts ~200 KB of varied text (prose, code, JSON, CJK: the caches and the JIT warm),
 * collects garbage again and reads its RSS. RSS is split into anonymous memory (the process's own)
 * and file-backed pages (mostly the node binary's own code, such as the optimizing compiler once
 * hot loops run: shared with every other Node process and paged in by any warm server anyway).
 */
import { execFileSync } from 'node:child_process';

const runs = Number(process.argv[2] ?? 5);
const root = new URL('..', import.meta.url);
const modes = ['bare', 'gpt-tokenizer', 'compact'] as const;
type Mode = (typeof modes)[number];

/** The child: prints one JSON line of figures. */
const child = String.raw`
const mode = process.argv[1];
const { readFileSync } = await import('node:fs');
const root = new URL('file://' + process.cwd() + '/');
const status = () => {
  try {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (name) => Number(new RegExp(name + ':\\s+(\\d+)').exec(text)?.[1] ?? 0);
    return { anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
  } catch {
    return { anon: process.memoryUsage.rss() / 2 ** 20, file: 0 };
  }
};
const settle = async () => { globalThis.gc(); await new Promise((r) => setTimeout(r, 100)); globalThis.gc(); };
// The code first (the compact tokenizer's data loads only with loadTokenizer()); gpt-tokenizer's
// import is its data load, so it stays inside the measurement.
const tokenizer = await import(new URL('src/tokenizer/count-tokens.ts', root).href);
await settle();
const before = status();
const started = performance.now();
let count = () => 0;
if (mode === 'gpt-tokenizer') {
  const library = await import('gpt-tokenizer');
  const plain = { disallowedSpecial: new Set() };
  count = (text) => library.countTokens(text, plain);
} else if (mode === 'compact') {
  tokenizer.loadTokenizer();
  count = tokenizer.countTextTokens;
}
count('Hello, world!');
const readyMs = performance.now() - started;
await settle();
const ready = status();
const corpus = ['README.md', 'ARCHITECTURE.md', 'src/gateway/deliver.ts', 'package-lock.json']
  .map((file) => readFileSync(new URL(file, root), 'utf8').slice(0, 60000))
  .concat(['模型网关在请求被接受之前计算每个提示的令牌数。'.repeat(400), '🙂 héllo wörld '.repeat(500)]);
for (const text of corpus) for (let at = 0; at < text.length; at += 3000) count(text.slice(at, at + 3000).replaceAll('<|', '< |'));
await settle();
const after = status();
console.log(JSON.stringify({ mode, readyMs, before, ready, after }));
`;

interface Figures {
  mode: Mode;
  readyMs: number;
  before: { anon: number; file: number };
  ready: { anon: number; file: number };
  after: { anon: number; file: number };
}

function measure(mode: Mode): Figures {
  const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', child, mode], {
    cwd: new URL('.', root).pathname,
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Figures;
}

const results = new Map<Mode, Figures[]>(modes.map((mode) => [mode, []]));
for (let run = 0; run < runs; run++) for (const mode of modes) results.get(mode)?.push(measure(mode));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const mib = (value: number): string => value.toFixed(1).padStart(7);
console.log(`${runs} runs each, medians, MiB (anonymous + file-backed = RSS)`);
console.log(
  'mode            RSS before   RSS after    added: ready  (anon)   used  (anon   file)   ready ms',
);
for (const mode of modes) {
  const figures = results.get(mode) ?? [];
  const pick = (read: (figures: Figures) => number): number => median(figures.map(read));
  const before = pick((f) => f.before.anon + f.before.file);
  const after = pick((f) => f.after.anon + f.after.file);
  const ready = pick((f) => f.ready.anon + f.ready.file - f.before.anon - f.before.file);
  const readyAnon = pick((f) => f.ready.anon - f.before.anon);
  const anon = pick((f) => f.after.anon - f.before.anon);
  const file = pick((f) => f.after.file - f.before.file);
  console.log(
    `${mode.padEnd(14)} ${mib(before)}     ${mib(after)}    ${' '.repeat(6)}${mib(ready)} ${mib(readyAnon)} ${mib(after - before)} ${mib(anon)} ${mib(file)}   ${pick(
      (f) => f.readyMs,
    )
      .toFixed(0)
      .padStart(6)}`,
  );
}
