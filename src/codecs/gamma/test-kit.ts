/** Helpers shared by this folder's tests: fixtures, a deterministic decode context, SSE plumbing. */
import { readFileSync } from 'node:fs';
import type { StreamEvent } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import type { DecodeContext } from '../codec.ts';
import { createStreamDecoder } from './decode-stream.ts';

export const fixedNow = 1_760_000_000_123;

/** Ids `<prefix>1`, `<prefix>2`… in call order; the clock never moves. */
export function testContext(): DecodeContext {
  let counter = 0;
  return {
    generateId: (prefix) => `${prefix}${++counter}`,
    now: () => fixedNow,
  };
}

function fixturePath(name: string): URL {
  return new URL(`./__fixtures__/${name}`, import.meta.url);
}

export function loadJson(name: string): unknown {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8'));
}

/** One raw JSON chunk per line. */
export function loadChunks(name: string): string[] {
  return readFileSync(fixturePath(name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The chunks framed as the family frames them (`\r\n\r\n` between events in practice). */
export function sseBytes(chunks: readonly string[]): Uint8Array {
  return new TextEncoder().encode(chunks.map((chunk) => `data: ${chunk}\r\n\r\n`).join(''));
}

/** Parse SSE pieces and run them through a fresh gamma stream decoder. */
export function decodeSse(
  pieces: ReadonlyArray<Uint8Array | string>,
  context = testContext(),
): StreamEvent[] {
  const parser = new SseParser();
  const decoder = createStreamDecoder(context);
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  for (const piece of pieces) parser.push(piece, (message) => decoder.push(message, emit));
  parser.end((message) => decoder.push(message, emit));
  decoder.end(emit);
  return events;
}

/** Split `bytes` at the given offsets (any order, duplicates ignored). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const sorted = [...new Set(cuts)].sort((left, right) => left - right);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    pieces.push(bytes.slice(start, cut));
    start = cut;
  }
  pieces.push(bytes.slice(start));
  return pieces;
}
