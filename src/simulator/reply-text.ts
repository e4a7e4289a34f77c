/**
 * The words of a simulated text reply, and their split into streamable token pieces. A reply is
 * `Simulated reply from <model>: <lead>` followed by filler words picked by a seeded PRNG until a
 * natural length of 30–60 tokens (chosen by the seed), ending with a period.
 */
import { decodeTokens, encodeText } from '../tokenizer/count-tokens.ts';
import { createRandom } from './hash.ts';
import type { TokenCounter } from './token-cache.ts';

/** One streamed chunk: usually one token; several when a character spans tokens. */
export interface Piece {
  text: string;
  tokens: number;
}

export const fillerWords = [
  'the',
  'simulated',
  'model',
  'answers',
  'with',
  'steady',
  'plain',
  'words',
  'so',
  'clients',
  'can',
  'test',
  'streaming',
  'usage',
  'and',
  'limits',
  'offline',
  'every',
  'reply',
  'is',
  'deterministic',
  'for',
  'one',
  'request',
  'while',
  'tokens',
  'arrive',
  'in',
  'order',
  'without',
  'any',
  'network',
  'cost',
  'or',
  'keys',
  'this',
  'text',
  'carries',
  'no',
  'meaning',
  'beyond',
  'its',
  'shape',
  'length',
  'timing',
  'a',
  'gateway',
  'may',
  'translate',
  'it',
  'to',
  'another',
  'family',
  'unchanged',
  'quick',
  'brown',
  'fox',
  'jumps',
  'over',
  'lazy',
  'dog',
  'again',
  'today',
  'here',
] as const;

const whitespace = /\s+/;
const echoWords = 40;
/** Enough characters for 40 ordinary words; longer inputs are not scanned at all. */
const echoScanChars = 2000;

/** Longest echoed word: a run without spaces (a script written without them) is cut. */
const echoWordChars = 48;

/** The first ~40 words of `text`, whitespace collapsed, each at most 48 characters. */
export function trimWords(text: string): string {
  const words = text.slice(0, echoScanChars).trim().split(whitespace);
  const short = (word: string): string =>
    word.length <= echoWordChars ? word : Array.from(word).slice(0, echoWordChars).join('');
  return words.slice(0, echoWords).map(short).join(' ');
}

export function naturalText(model: string, lead: string, seed: number, counter: TokenCounter): string {
  const prefix = lead === '' ? `Simulated reply from ${model}:` : `Simulated reply from ${model}: ${lead}`;
  const random = createRandom(seed);
  const target = 30 + (random() % 31);
  // Most filler words are one token each (with their leading space); the period is one more.
  const fillerCount = Math.max(4, target - counter.count(prefix) - 1);
  let text = prefix;
  for (let count = 0; count < fillerCount; count++) {
    text += ` ${fillerWords[random() % fillerWords.length] ?? 'word'}`;
  }
  // Lone surrogates would not survive the tokenizer round trip that cuts the text into pieces.
  return `${text}.`.toWellFormed();
}

const maxCachedPieces = 256;
const pieceCache = new Map<string, readonly Piece[]>();

/** `text` as token pieces; replies repeat in benchmarks, so recent splits are remembered. */
export function toPieces(text: string): readonly Piece[] {
  const known = pieceCache.get(text);
  if (known !== undefined) return known;
  const pieces = splitPieces(text);
  pieceCache.set(text, pieces);
  if (pieceCache.size > maxCachedPieces) {
    const oldest = pieceCache.keys().next();
    if (oldest.done !== true) pieceCache.delete(oldest.value);
  }
  return pieces;
}

/**
 * Decode token by token, holding tokens back while they end inside a multi-byte character: a group
 * is complete when its decoded text is exactly the next stretch of the original text.
 */
function splitPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  const tokens = encodeText(text);
  let position = 0;
  let groupStart = 0;
  for (let index = 0; index < tokens.length; index++) {
    const group = tokens.slice(groupStart, index + 1);
    const decoded = decodeTokens(group);
    if (!text.startsWith(decoded, position)) continue;
    pieces.push({ text: decoded, tokens: group.length });
    position += decoded.length;
    groupStart = index + 1;
  }
  return pieces;
}
