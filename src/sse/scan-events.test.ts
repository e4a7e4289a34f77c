import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseEventTooLarge } from './parse-sse.ts';
import { SseEventScanner } from './scan-events.ts';

const stream = 'data: {"a":1}\n\nevent: x\ndata: {"b":"é"}\n\n\ndata: {"c":3}\n\n';

test('whole events come out as they came, however the text is split', () => {
  for (let first = 0; first <= stream.length; first++) {
    for (const second of [first, Math.min(stream.length, first + 1), Math.min(stream.length, first + 7)]) {
      const scanner = new SseEventScanner();
      const out = [stream.slice(0, first), stream.slice(first, second), stream.slice(second)]
        .map((piece) => scanner.take(piece))
        .join('');
      assert.equal(out, stream, `split at ${first}, ${second}`);
      assert.equal(scanner.rest(), '');
    }
  }
});

test('an unfinished event is held until its blank line, and given back at the end', () => {
  const scanner = new SseEventScanner();
  assert.equal(scanner.take('data: {"a":1}\n\ndata: {"b"'), 'data: {"a":1}\n\n');
  assert.equal(scanner.take(':2}\n'), '');
  assert.equal(scanner.take('\n'), 'data: {"b":2}\n\n');
  assert.equal(scanner.take('data: last'), '');
  assert.equal(scanner.rest(), 'data: last');
});

test('a stream with \\r line ends is handed back whole for the parser', () => {
  const scanner = new SseEventScanner();
  assert.equal(scanner.take('data: {"a"'), '');
  assert.equal(scanner.take(':1}\r\n\r\n'), undefined);
  assert.equal(scanner.rest(), 'data: {"a":1}\r\n\r\n');
});

test('one event past the cap throws, whatever the reads it came in', () => {
  const scanner = new SseEventScanner(16);
  assert.equal(scanner.take('data: {"a":1}\n\n'), 'data: {"a":1}\n\n');
  assert.equal(scanner.take('data: 0123'), '');
  assert.throws(() => scanner.take('4567890'), SseEventTooLarge);
});
