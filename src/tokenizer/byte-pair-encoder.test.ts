import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { countTokens, decode, encode } from 'gpt-tokenizer';
import { countBpeTokens, decodeBpe, encodeBpe } from './byte-pair-encoder.ts';

/** The reference: gpt-tokenizer's o200k_base with special-token strings as plain text. */
const plain = { disallowedSpecial: new Set<string>() };
const root = new URL('../../', import.meta.url);

/** Seeded, so a failure replays. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return Math.floor((state / 0x80000000) * below);
  };
}

/** Asserts that our tokens and count of `text` are the library's, and that decoding agrees. */
function assertSame(text: string, label: string): void {
  const expected = encode(text, plain);
  const tokens: number[] = [];
  encodeBpe(text, tokens);
  if (tokens.length !== expected.length || tokens.some((token, index) => token !== expected[index]))
    assert.deepEqual(tokens, expected, `${label}: ${JSON.stringify(text.slice(0, 80))}`);
  assert.equal(countBpeTokens(text), countTokens(text, plain), label);
  // The library's decoder drops a byte order mark (and keeps streaming state across calls), ours
  // keeps it; everywhere else both give the text back, lone surrogates as U+FFFD.
  if (!text.includes('\uFEFF')) {
    assert.equal(decodeBpe(tokens), decode(expected), label);
    assert.equal(decodeBpe(tokens), text.toWellFormed(), label);
  }
}

/** Every kind of run the o200k pre-tokenizer and the merge tell apart. */
const fragments = [
  'the',
  ' quick',
  'Brown',
  ' FOX',
  'jumps',
  "'s",
  "'LL",
  "'re",
  "n't",
  'McDonald',
  'iPhone',
  'ÉCOLE',
  'naïve',
  'e\u0301',
  'straße',
  'Привет',
  ' мир',
  'مرحبا',
  'שלום',
  'नमस्ते',
  'ประเทศไทย',
  'Ελληνικά',
  '你好',
  '世界',
  '模型网关',
  'こんにちは',
  'カタカナ',
  '한국어',
  '안녕하세요',
  '，',
  '。',
  '「',
  '」',
  '🙂',
  '👍🏽',
  '👨‍👩‍👧‍👦',
  '🇪🇸',
  '🏳️‍🌈',
  '❤️',
  '\u200d',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\uFEFF',
  '0',
  '7',
  '42',
  '123',
  '4567',
  '3.14159',
  '1e-9',
  '0x1F',
  '١٢٣',
  '½',
  'Ⅻ',
  ' ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  ' \n ',
  '\v',
  '\f',
  '!',
  '?',
  '...',
  '!!!',
  '/',
  '//',
  '/*',
  '*/',
  '=>',
  '===',
  '!==',
  '&&',
  '||',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '<',
  '>',
  '</div>',
  '"',
  "'",
  '`',
  '```',
  '#',
  '##',
  '@',
  '$',
  '%',
  '^',
  '&',
  '*',
  '-',
  '---',
  '_',
  '__init__',
  '+',
  '=',
  '~',
  '|',
  '\\',
  ';',
  ':',
  ',',
  '.',
  '€',
  '£',
  '©',
  '™',
  '→',
  '≤',
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<|fim_prefix|>',
  '<|endofprompt|>',
  '<|',
  '|>',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  '\uFFFD',
  '\u0000',
  '\u001b[0m',
  '\u007f',
  '\uE000',
  '\uFFFF',
  '{"key": "value"}',
  '"model": "A-1",',
  '[1, 2, 3]',
  'null',
  'true',
  'https://example.com/a?b=c',
  'const x = 1;',
  'def f(x):',
  '    return x',
  'SELECT * FROM t;',
  'fn main() {}',
];

/** A random code point from anywhere in Unicode, lone surrogates included. */
function anyCodePoint(next: (below: number) => number): string {
  const range = next(4);
  if (range === 0) return String.fromCharCode(next(0x80));
  if (range === 1) return String.fromCharCode(next(0x800));
  if (range === 2) return String.fromCharCode(next(0x10000));
  return String.fromCodePoint(0x10000 + next(0x100000));
}

test('fragments mixed at random: the same tokens, count and text as gpt-tokenizer (2,000 texts)', () => {
  const next = random(20_251_124);
  for (let round = 0; round < 2_000; round++) {
    let text = '';
    const parts = 1 + next(40);
    for (let part = 0; part < parts; part++)
      text += next(5) === 0 ? anyCodePoint(next) : (fragments[next(fragments.length)] as string);
    assertSame(text, `mix ${round}`);
  }
});

test('random Unicode, lone surrogates and all (1,000 texts)', () => {
  const next = random(7);
  for (let round = 0; round < 1_000; round++) {
    let text = '';
    const length = 1 + next(64);
    for (let index = 0; index < length; index++) text += anyCodePoint(next);
    assertSame(text, `unicode ${round}`);
  }
});

test('long runs of one kind: spaces, digits, punctuation, one letter, one ideograph, emoji', () => {
  for (const unit of [
    ' ',
    '\n',
    '\t',
    ' \n',
    '1',
    '12',
    '!',
    '-',
    '=',
    '.',
    '*',
    'a',
    'ab',
    'X',
    '一',
    'é',
    '🙂',
    '\uFEFF',
  ]) {
    for (const length of [1, 2, 3, 7, 64, 127, 128, 129, 300, 1_000])
      assertSame(unit.repeat(length), `run ${unit}`);
  }
  assertSame(`${' '.repeat(500)}word${'\n'.repeat(40)}${'0'.repeat(99)}!`, 'runs mixed');
});

test('long single pre-tokens of random letters, the merge of more than 64 bytes (400 texts)', () => {
  const next = random(64);
  const scripts: [number, number][] = [
    [0x61, 26], // a–z
    [0x430, 32], // а–я
    [0x4e00, 20_000], // Han
    [0xac00, 11_172], // Hangul
    [0x3041, 86], // Hiragana
    [0x5d0, 27], // Hebrew
  ];
  for (let round = 0; round < 400; round++) {
    const [from, span] = scripts[next(scripts.length)] as [number, number];
    let text = next(2) === 0 ? ' ' : '';
    const length = 20 + next(400);
    for (let index = 0; index < length; index++) text += String.fromCharCode(from + next(span));
    assertSame(text, `letters ${round}`);
  }
});

test("real text: the project's prose, source, JSON and gpt-tokenizer's own o200k test plans", () => {
  const files = [
    'README.md',
    'ARCHITECTURE.md',
    'package.json',
    'src/tokenizer/segments.ts',
    'src/gateway/deliver.ts',
    'src/codecs/alpha/__fixtures__',
  ];
  let checked = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(new URL(file, root), 'utf8');
    } catch {
      continue; // a folder or a file that moved: the rest still counts
    }
    for (let start = 0; start < text.length; start += 1_500)
      assertSame(text.slice(start, start + 2_000), file);
    checked++;
  }
  assert.ok(checked >= 4, 'most corpus files were read');
  const lock = readFileSync(new URL('package-lock.json', root), 'utf8').slice(0, 200_000);
  for (let start = 0; start < lock.length; start += 5_000)
    assertSame(lock.slice(start, start + 1_000), 'lock');

  const plans = readFileSync(new URL(import.meta.resolve('gpt-tokenizer/data/TestPlans.txt')), 'utf8');
  let samples = 0;
  for (const plan of plans.split('\n\n')) {
    const match = /^EncodingName: o200k_base\nSample: (.*)\nEncoded: (\[.*\])$/s.exec(plan.trim());
    if (match === null) continue;
    const [, sample = '', encoded = '[]'] = match;
    assertSame(sample, 'test plan');
    const tokens: number[] = [];
    encodeBpe(sample, tokens);
    assert.deepEqual(tokens, JSON.parse(encoded), `test plan: ${sample.slice(0, 40)}`);
    samples++;
  }
  assert.ok(samples > 50, `${samples} o200k test plans`);
});

test('decoding: special tokens by name, unknown tokens refused like the library', () => {
  assert.equal(decodeBpe([13225, 199_999, 13225]), decode([13225, 199_999, 13225]));
  assert.equal(decodeBpe([200_003, 200_006]), '<|im_start|><|endofprompt|>');
  for (const bad of [199_998, 200_007, -1, 1.5, 10_000_000]) {
    assert.throws(() => decode([bad]));
    assert.throws(() => decodeBpe([bad]), /not in the byte pair encoder/);
  }
  // A token sequence cut inside a character gives U+FFFD, not bytes held for a later call.
  const tokens: number[] = [];
  encodeBpe('🙂', tokens);
  if (tokens.length > 1) assert.equal(decodeBpe(tokens.slice(0, 1)), '\uFFFD');
  assert.equal(decodeBpe(tokens), '🙂');
});
