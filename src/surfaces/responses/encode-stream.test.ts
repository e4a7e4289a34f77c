import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GatewayError, type JsonObject, type StreamEvent, type Usage } from '../../ir/index.ts';
import { foldStream } from '../../ir/fold-stream.ts';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import { SseParser, type SseMessage } from '../../sse/parse-sse.ts';
import type { ResponseContext } from '../../codecs/codec.ts';
import { createStreamDecoder } from './test-kit.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

const usage: Usage = { inputTokens: 37, outputTokens: 11, cacheReadTokens: 0, cacheWriteTokens: 0 };

function context(id: string, body: JsonObject, onFinished?: (answer: JsonObject) => void): ResponseContext {
  const turn = { id, createdAt: 1741290958, body };
  return {
    model: 'my-model',
    includeUsage: false,
    legacyFunctions: false,
    turn: onFinished === undefined ? turn : { ...turn, onFinished },
  };
}

function encodeAll(events: StreamEvent[], responseContext: ResponseContext): string {
  const encoder = createStreamEncoder(responseContext);
  return events.map((event) => encoder.encode(event)).join('');
}

function messages(text: string): SseMessage[] {
  const parsed: SseMessage[] = [];
  const parser = new SseParser();
  parser.push(text, (message) => parsed.push(message));
  parser.end((message) => parsed.push(message));
  return parsed;
}

const textEvents: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-1', model: 'up', created: 1 },
  { type: 'text-start', choice: 0, index: 0 },
  { type: 'text-delta', choice: 0, index: 0, text: 'Hi' },
  { type: 'text-delta', choice: 0, index: 0, text: ' there!' },
  { type: 'text-end', choice: 0, index: 0 },
  { type: 'finish', choice: 0, finishReason: { unified: 'stop' } },
  { type: 'message-end', usage },
];

const callEvents: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-2', model: 'up', created: 1 },
  { type: 'tool-call-start', choice: 0, index: 0, id: 'call_Wz1', name: 'get_weather' },
  { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '"Paris"}' },
  { type: 'tool-call-end', choice: 0, index: 0 },
  { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls' } },
  { type: 'message-end', usage },
];

const weatherTools = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
];

test('a streamed text answer, byte for byte', () => {
  const text = encodeAll(
    textEvents,
    context('resp_67c9fdcecf488190', { model: 'my-model', input: 'Say hi' }),
  );
  assert.equal(text, fixture('text.stream.txt'));
});

test('a streamed function call, byte for byte', () => {
  const body = { model: 'my-model', input: 'Weather in Paris?', tools: weatherTools };
  assert.equal(
    encodeAll(callEvents, context('resp_67c9fdced1b08190', body)),
    fixture('function-call.stream.txt'),
  );
});

test('every event names itself twice and numbers itself in order', () => {
  const parsed = messages(fixture('text.stream.txt') + fixture('function-call.stream.txt'));
  let expected = 0;
  for (const message of parsed) {
    const data = JSON.parse(message.data) as JsonObject;
    assert.equal(message.event, data.type);
    if (data.type === 'response.created') expected = 0;
    assert.equal(data.sequence_number, expected++);
  }
});

test('the stream reads back to the same answer the JSON body gives', () => {
  for (const events of [textEvents, callEvents]) {
    const finished: JsonObject[] = [];
    const responseContext = context('resp_1', { model: 'my-model', input: 'x' }, (answer) =>
      finished.push(answer),
    );
    const decoder = createStreamDecoder({ generateId: (prefix) => prefix, now: () => 0 });
    const decoded: StreamEvent[] = [];
    for (const message of messages(encodeAll(events, responseContext)))
      decoder.push(message, (event) => decoded.push(event));
    decoder.end((event) => decoded.push(event));
    checkStreamEvents(decoded);
    const folded = foldStream(decoded);
    const whole = encodeResponse(
      { ...folded, id: 'x', created: 0 },
      context('resp_1', { model: 'my-model', input: 'x' }),
    );
    assert.equal(finished.length, 1);
    assert.deepEqual(finished[0], whole);
  }
});

test('cut by the output cap: response.incomplete with the reason', () => {
  const cut: StreamEvent[] = [
    ...textEvents.slice(0, 5),
    { type: 'finish', choice: 0, finishReason: { unified: 'length' } },
    { type: 'message-end', usage },
  ];
  const all = messages(encodeAll(cut, context('resp_2', { model: 'm', input: 'x' })));
  const last = all[all.length - 1];
  assert.ok(last !== undefined);
  assert.equal(last.event, 'response.incomplete');
  const data = JSON.parse(last.data) as { response: JsonObject };
  assert.equal(data.response.status, 'incomplete');
  assert.deepEqual(data.response.incomplete_details, { reason: 'max_output_tokens' });
});

test('a failure mid-stream: an error event, then response.failed; nothing after', () => {
  const finished: JsonObject[] = [];
  const encoder = createStreamEncoder(
    context('resp_3', { model: 'm', input: 'x' }, (answer) => finished.push(answer)),
  );
  let text = textEvents
    .slice(0, 3)
    .map((event) => encoder.encode(event))
    .join('');
  text += encoder.encode({ type: 'error', error: new GatewayError('timeout', 'upstream: timed out') });
  assert.equal(encoder.encode({ type: 'message-end', usage }), '');
  const tail = messages(text).slice(-2);
  assert.deepEqual(
    tail.map((message) => message.event),
    ['error', 'response.failed'],
  );
  assert.deepEqual(JSON.parse(tail[0]?.data ?? '{}'), {
    type: 'error',
    sequence_number: 5,
    code: 'timeout',
    message: 'upstream: timed out',
    param: null,
  });
  const failed = JSON.parse(tail[1]?.data ?? '{}') as { response: JsonObject };
  assert.equal(failed.response.status, 'failed');
  assert.deepEqual(failed.response.error, { code: 'timeout', message: 'upstream: timed out' });
  assert.deepEqual(finished, [], 'a failed answer is not kept');
});

test('an error before anything was said still opens the response first', () => {
  const encoder = createStreamEncoder(context('resp_4', { model: 'm', input: 'x' }));
  const events = messages(encoder.encode({ type: 'error', error: new GatewayError('upstream', 'boom') })).map(
    (message) => message.event,
  );
  assert.deepEqual(events, ['response.created', 'response.in_progress', 'error', 'response.failed']);
});

test('a streamed call to a namespace member is split in every event that names it', () => {
  const body = {
    model: 'm',
    input: 'x',
    tools: [
      { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'get_weather' }] },
    ],
  };
  const renamed = callEvents.map((event) =>
    event.type === 'tool-call-start' ? { ...event, name: 'ns__get_weather' } : event,
  );
  const items = messages(encodeAll(renamed, context('resp_5', body)))
    .map((message) => JSON.parse(message.data) as JsonObject)
    .flatMap((data) => (data.type === 'response.output_item.done' ? [data.item] : []));
  assert.deepEqual(items, [
    {
      id: 'fc_5_0',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_Wz1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      namespace: 'ns',
    },
  ]);
});
