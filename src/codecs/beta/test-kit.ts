/** Test-only helpers: fixture loading and running raw SSE bytes through the beta stream decoder. */
import { readFileSync } from 'node:fs';
import type { DecodeContext } from '../codec.ts';
import type { StreamEvent } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import { createStreamDecoder } from './decode-stream.ts';

export function fixtureText(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

export function fixture(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/** `event-name<TAB>json` lines → the SSE text an upstream would send. */
export function sseFromChunks(name: string): string {
  let text = '';
  for (const line of fixtureText(name).split('\n')) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    text += `event: ${line.slice(0, tab)}\ndata: ${line.slice(tab + 1)}\n\n`;
  }
  return text;
}

export const decodeContext: DecodeContext = {
  generateId: (prefix) => `${prefix}generated`,
  now: () => 1_750_000_000_000,
};

/** Raw chunks (any split) → the canonical events the decoder emits, `end()` included. */
export function decodeChunks(chunks: Iterable<Uint8Array | string>): StreamEvent[] {
  const parser = new SseParser();
  const decoder = createStreamDecoder(decodeContext);
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  for (const chunk of chunks) {
    parser.push(chunk, (message) => {
      decoder.push(message, emit);
    });
  }
  parser.end((message) => {
    decoder.push(message, emit);
  });
  decoder.end(emit);
  return events;
}

/** Splits `bytes` at the given offsets (sorted, unique, inside the range). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const sorted = [...cuts].sort((left, right) => left - right);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
