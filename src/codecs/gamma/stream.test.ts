import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import { foldStream } from '../../ir/fold-stream.ts';
import { GatewayError, type ChatResponse, type StreamEvent, type Usage } from '../../ir/index.ts';
import { callId } from './decode-response.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { decodeSse, fixedNow, loadChunks, loadJson, splitAt, sseBytes, testContext } from './test-kit.ts';

const created = Math.floor(fixedNow / 1000);
const scenarios = ['stream-text', 'stream-function-call'] as const;

function usage(inputTokens: number, outputTokens: number, reasoningTokens?: number): Usage {
  const value: Usage = { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
  if (reasoningTokens !== undefined) value.reasoningTokens = reasoningTokens;
  return value;
}

/** `created` comes from the clock; everything else, synthesized call ids included, must match. */
function withoutCreated(response: ChatResponse): unknown {
  return { ...response, created: 0 };
}

function errorOf(events: StreamEvent[]): GatewayError {
  const last = events.at(-1);
  assert.equal(last?.type, 'error');
  return last.error;
}

test('text stream: deltas in one block, the empty final part is skipped, usage is a running total', () => {
  const final = usage(9, 208, 185);
  assert.deepEqual(decodeSse([sseBytes(loadChunks('stream-text.chunks.txt'))]), [
    { type: 'message-start', id: 'r1', model: 'm', created, usage: usage(9, 190, 185) },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'There are ' },
    { type: 'usage', usage: usage(9, 190, 185) },
    { type: 'text-delta', choice: 0, index: 0, text: 'three. Ünïcödé 世界 🙂' },
    { type: 'usage', usage: final },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop', raw: 'STOP' } },
    { type: 'usage', usage: final },
    { type: 'message-end', usage: final },
  ]);
});

test('function-call stream: text closed first, each whole call is start + one delta + end, STOP means tool-calls', () => {
  assert.deepEqual(decodeSse([sseBytes(loadChunks('stream-function-call.chunks.txt'))]), [
    { type: 'message-start', id: 's2', model: 'm-001', created, usage: usage(60, 6) },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Let me check the weather.' },
    { type: 'usage', usage: usage(60, 6) },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: callId('s2', 0, 0), name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"city":"Paris","units":"celsius"}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'tool-call-start', choice: 0, index: 2, id: callId('s2', 0, 1), name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 2, argumentsDelta: '{"city":"Tōkyō"}' },
    { type: 'tool-call-end', choice: 0, index: 2 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'STOP' } },
    { type: 'usage', usage: usage(60, 30) },
    { type: 'message-end', usage: usage(60, 30) },
  ]);
});

test('(1) any byte split, inside multi-byte UTF-8 too, decodes to identical events', () => {
  for (const scenario of scenarios) {
    const bytes = sseBytes(loadChunks(`${scenario}.chunks.txt`));
    const expected = decodeSse([bytes]);
    // Every cut that lands inside a multi-byte character, all at once.
    const inside = [...bytes.keys()].filter((offset) => ((bytes[offset] ?? 0) & 0xc0) === 0x80);
    assert.ok(inside.length > 0, `${scenario} has multi-byte characters`);
    assert.deepEqual(decodeSse(splitAt(bytes, inside)), expected);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 16 }), (cuts) => {
        assert.deepEqual(decodeSse(splitAt(bytes, cuts)), expected);
      }),
    );
  }
});

test('(2) + (3) every decoded stream is well-formed and folds to the non-streamed decode', () => {
  const cases: Array<[string[], unknown]> = [
    [loadChunks('stream-text.chunks.txt'), loadJson('stream-text.json')],
    [loadChunks('stream-function-call.chunks.txt'), loadJson('stream-function-call.json')],
    [[JSON.stringify(loadJson('blocked-prompt.json'))], loadJson('blocked-prompt.json')],
  ];
  for (const [chunks, json] of cases) {
    const events = decodeSse([sseBytes(chunks)]);
    assert.deepEqual(checkStreamEvents(events), []);
    assert.equal(events.at(-1)?.type, 'message-end');
    assert.deepEqual(
      withoutCreated(foldStream(events)),
      withoutCreated(gammaCodec.decodeResponse(json, testContext())),
    );
  }
});

test('blocked prompt stream: one content-filter finish, then message-end', () => {
  const events = decodeSse([sseBytes([JSON.stringify(loadJson('blocked-prompt.json'))])]);
  assert.deepEqual(
    events.map((event) => event.type),
    ['message-start', 'finish', 'usage', 'message-end'],
  );
  assert.deepEqual(events[1], {
    type: 'finish',
    choice: 0,
    finishReason: { unified: 'content-filter', raw: 'SAFETY' },
  });
});

test('a bare close before finishReason is an error, never success', () => {
  const truncated = decodeSse([sseBytes(loadChunks('stream-text.chunks.txt').slice(0, 2))]);
  assert.deepEqual(checkStreamEvents(truncated), []);
  const error = errorOf(truncated);
  assert.equal(error.kind, 'upstream');
  assert.equal(error.message, 'upstream stream ended before completion');
  assert.deepEqual(
    decodeSse([]).map((event) => event.type),
    ['error'],
  );
});

test('an error chunk mid-stream becomes an error event with the family mapping (RetryInfo → retryAfterSeconds)', () => {
  const [first] = loadChunks('stream-text.chunks.txt');
  const events = decodeSse([sseBytes([first ?? '', JSON.stringify(loadJson('error-429.json'))])]);
  assert.deepEqual(checkStreamEvents(events), []);
  const error = errorOf(events);
  assert.equal(error.kind, 'rate_limited');
  assert.equal(error.retryAfterSeconds, 22);
  assert.equal(error.message, 'upstream: rate limit reached, retry later');
  assert.equal(errorOf(decodeSse(['data: not json\n\n'])).kind, 'upstream');
});

test('several candidates: per-candidate blocks; message-end only once every candidate finished', () => {
  const chunk = (index: number, text: string, finishReason?: string): string =>
    JSON.stringify({
      candidates: [
        { content: { role: 'model', parts: [{ text }] }, index, ...(finishReason ? { finishReason } : {}) },
      ],
    });
  const events = decodeSse([
    sseBytes([chunk(0, 'a'), chunk(1, 'b'), chunk(1, '', 'MAX_TOKENS'), chunk(0, 'c', 'STOP')]),
  ]);
  assert.deepEqual(checkStreamEvents(events), []);
  assert.deepEqual(foldStream(events).choices, [
    { index: 0, content: [{ type: 'text', text: 'ac' }], finishReason: { unified: 'stop', raw: 'STOP' } },
    {
      index: 1,
      content: [{ type: 'text', text: 'b' }],
      finishReason: { unified: 'length', raw: 'MAX_TOKENS' },
    },
  ]);
  const unfinished = decodeSse([sseBytes([chunk(0, 'a', 'STOP'), chunk(1, 'b')])]);
  assert.equal(errorOf(unfinished).message, 'upstream stream ended before completion');
});

const encodeContext = { model: 'client-model', includeUsage: false, legacyFunctions: false };

function encodeAll(events: readonly StreamEvent[]): string {
  const encoder = gammaCodec.createStreamEncoder(encodeContext);
  return events.map((event) => encoder.encode(event)).join('');
}

test('(5) canonical events → encoder → decoder gives the same events', () => {
  const end = usage(12, 30, 10);
  const single: StreamEvent[] = [
    { type: 'message-start', id: 'r9', model: 'client-model', created },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Hel' },
    { type: 'text-delta', choice: 0, index: 0, text: 'lo ✓' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: 'call_1', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"a":[1,2]}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'STOP' } },
    { type: 'usage', usage: end },
    { type: 'message-end', usage: end },
  ];
  const multiple: StreamEvent[] = [
    { type: 'message-start', id: 'r10', model: 'client-model', created },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'a' },
    { type: 'text-start', choice: 1, index: 0 },
    { type: 'text-delta', choice: 1, index: 0, text: 'b' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop', raw: 'STOP' } },
    { type: 'text-end', choice: 1, index: 0 },
    { type: 'finish', choice: 1, finishReason: { unified: 'length', raw: 'MAX_TOKENS' } },
    { type: 'usage', usage: end },
    { type: 'message-end', usage: end },
  ];
  for (const events of [single, multiple]) {
    assert.deepEqual(checkStreamEvents(events), []);
    assert.deepEqual(decodeSse([encodeAll(events)]), events);
  }
});

test('encoder output is the family SSE: data lines only, whole calls, final chunk with every finishReason and usage', () => {
  const text = encodeAll([
    { type: 'message-start', id: 'msg_1', model: 'x', created },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Hi' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: 'toolu_1', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"q":' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '"x"}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
    { type: 'message-end', usage: usage(5, 7) },
  ]);
  assert.equal(
    text,
    'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0}],"modelVersion":"client-model","responseId":"msg_1"}\n\n' +
      'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"q":"x"},"id":"toolu_1"}}]},"index":0}],"modelVersion":"client-model","responseId":"msg_1"}\n\n' +
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":7,"totalTokenCount":12},"modelVersion":"client-model","responseId":"msg_1"}\n\n',
  );
});

test('encoder repeats the running usage on later chunks once it knows it', () => {
  const text = encodeAll([
    { type: 'message-start', id: 'r', model: 'x', created, usage: usage(3, 0) },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'a' },
  ]);
  assert.match(text, /"usageMetadata":\{"promptTokenCount":3,"candidatesTokenCount":0,"totalTokenCount":3\}/);
});

test('encoder error event: the family error body as a data chunk, then silence', () => {
  const encoder = gammaCodec.createStreamEncoder(encodeContext);
  encoder.encode({ type: 'message-start', id: 'r', model: 'x', created });
  const error = new GatewayError('rate_limited', 'slow down', { retryAfterSeconds: 3 });
  assert.equal(
    encoder.encode({ type: 'error', error }),
    'data: {"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}\n\n',
  );
  assert.equal(encoder.encode({ type: 'message-end', usage: usage(0, 0) }), '');
});

test('encoder: tool arguments that are not a JSON object end the stream with an upstream error chunk', () => {
  const text = encodeAll([
    { type: 'message-start', id: 'r', model: 'x', created },
    { type: 'tool-call-start', choice: 0, index: 0, id: 'c', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"broken' },
    { type: 'tool-call-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls' } },
    { type: 'message-end', usage: usage(1, 1) },
  ]);
  assert.equal(
    text,
    'data: {"error":{"code":502,"message":"the upstream returned tool-call arguments that are not a JSON object","status":"UNAVAILABLE"}}\n\n',
  );
});
