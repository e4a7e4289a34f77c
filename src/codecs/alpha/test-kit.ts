/** Shared helpers for this folder's tests: fixtures, a deterministic context, whole-stream decoding. */
import { readFileSync } from 'node:fs';
import type { StreamEvent } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import type { DecodeContext } from '../codec.ts';
import { createStreamDecoder } from './decode-stream.ts';

export function fixtureText(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/** A `*.chunks.txt` fixture as the SSE text an upstream sends. */
export function fixtureSse(name: string): string {
  return fixtureText(name)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `data: ${line}\n\n`)
    .join('');
}

/** Ids `<prefix>gen<n>` and a fixed clock, so decoders that invent ids are deterministic. */
export function testContext(): DecodeContext {
  let next = 0;
  return { generateId: (prefix) => `${prefix}gen${next++}`, now: () => 1_731_000_999_000 };
}

/** Runs SSE input (whole text or byte chunks) through the parser and a fresh decoder. */
export function decodeSse(
  input: string | Uint8Array[],
  context: DecodeContext = testContext(),
): StreamEvent[] {
  const parser = new SseParser();
  const decoder = createStreamDecoder(context);
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  const onMessage = (message: { event: string | undefined; data: string }): void => {
    decoder.push(message, emit);
  };
  for (const chunk of typeof input === 'string' ? [input] : input) parser.push(chunk, onMessage);
  parser.end(onMessage);
  decoder.end(emit);
  return events;
}
