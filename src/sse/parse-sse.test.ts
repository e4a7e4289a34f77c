import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SseParser, type SseMessage } from './parse-sse.ts';

function parseAll(chunks: Array<Uint8Array | string>): SseMessage[] {
  const parser = new SseParser();
  const messages: SseMessage[] = [];
  for (const chunk of chunks) parser.push(chunk, (message) => messages.push(message));
  parser.end((message) => messages.push(message));
  return messages;
}

test('parses named events, data-only events, comments and multi-line data', () => {
  const text = 'event: ping\ndata: {"type":"ping"}\n\n: keep-alive\n\ndata: a\ndata: b\n\ndata: [DONE]\n\n';
  assert.deepEqual(parseAll([text]), [
    { event: 'ping', data: '{"type":"ping"}' },
    { event: undefined, data: 'a\nb' },
    { event: undefined, data: '[DONE]' },
  ]);
});

test('accepts CRLF and CR line ends, and a final event without a blank line', () => {
  assert.deepEqual(parseAll(['data: x\r\n\r\ndata: y\r\rdata: z']), [
    { event: undefined, data: 'x' },
    { event: undefined, data: 'y' },
    { event: undefined, data: 'z' },
  ]);
});

test('any split of the bytes, inside multi-byte UTF-8 too, gives the same messages', () => {
  const text = 'event: content_block_delta\r\ndata: {"text":"héllo 世界 🙂"}\r\n\r\ndata: ünïcode\n\n';
  const bytes = new TextEncoder().encode(text);
  const expected = parseAll([bytes]);
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), (cuts) => {
      const sorted = [...cuts].sort((left, right) => left - right);
      const chunks: Uint8Array[] = [];
      let start = 0;
      for (const cut of sorted) {
        chunks.push(bytes.slice(start, cut));
        start = cut;
      }
      chunks.push(bytes.slice(start));
      assert.deepEqual(parseAll(chunks), expected);
    }),
  );
});
