import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SseEventTooLarge, SseParser, type SseMessage } from './parse-sse.ts';

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

test('a field is its name up to the first colon: bare names, other fields and look-alikes', () => {
  const text =
    'data\n\nevent\ndata:x\n\ndataX: no\nevents: no\nid: 7\nretry: 10\ndata:  two spaces\n\n' +
    'data:a:b\nevent:e:f\n\n';
  const expected = [
    { event: undefined, data: '' },
    { event: '', data: 'x' },
    { event: undefined, data: ' two spaces' },
    { event: 'e:f', data: 'a:b' },
  ];
  assert.deepEqual(parseAll([text]), expected);
  // Held across reads, split inside a field's name or value, the lines read the same.
  for (let cut = 1; cut < text.length; cut++)
    assert.deepEqual(parseAll([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`);
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

test('a line split across many chunks is scanned once: 50 MiB with no newline in linear time', () => {
  const parser = new SseParser();
  const chunk = 'x'.repeat(65_536);
  const started = performance.now();
  parser.push('data: ', () => undefined);
  for (let index = 0; index < 800; index++) parser.push(chunk, () => undefined);
  const messages: string[] = [];
  parser.push('\n\n', (message) => messages.push(message.data));
  // Quadratic re-scanning (the earlier parser) took seconds here; linear is tens of milliseconds.
  assert.ok(performance.now() - started < 2_000, `${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(messages.length, 1);
  assert.equal(messages[0]?.length, 800 * 65_536);
});

test('an event past the cap throws SseEventTooLarge, whether one long line or many data lines', () => {
  const long = new SseParser(1_000);
  long.push('data: ', () => undefined);
  assert.throws(() => {
    for (let index = 0; index < 100; index++) long.push('y'.repeat(100), () => undefined);
  }, SseEventTooLarge);
  const many = new SseParser(1_000);
  assert.throws(() => {
    for (let index = 0; index < 100; index++) many.push(`data: ${'z'.repeat(50)}\n`, () => undefined);
  }, SseEventTooLarge);
  // Within the cap, events of any count pass; the cap is per event.
  const fine = new SseParser(1_000);
  let seen = 0;
  for (let index = 0; index < 1_000; index++)
    fine.push(`data: ${'w'.repeat(500)}\n\n`, () => {
      seen++;
    });
  assert.equal(seen, 1_000);
});

test('line ends split across chunks, CRLF and lone CR, still parse with pieces held between chunks', () => {
  const parser = new SseParser(10_000);
  const messages: string[] = [];
  const emit = (message: { data: string }): void => {
    messages.push(message.data);
  };
  for (const piece of ['da', 'ta: one', '\r', '\n\r\ndata: t', 'wo\r\rdata', ': three\n', '\n'])
    parser.push(piece, emit);
  parser.end(emit);
  assert.deepEqual(messages, ['one', 'two', 'three']);
});
