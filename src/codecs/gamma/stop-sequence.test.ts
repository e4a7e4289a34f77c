import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatResponse, StreamEvent } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeSse, loadJson, testContext } from './test-kit.ts';

const context: ResponseContext = { model: 'm', includeUsage: true, legacyFunctions: false };
const stopped = { unified: 'stop', raw: 'STOP', stopSequence: '4' } as const;

test("finishMessage in the gateway's form names the stop sequence; other messages do not", () => {
  const body = loadJson('stop-sequence.json') as { candidates: Array<Record<string, unknown>> };
  assert.deepEqual(decodeResponse(body, testContext()).choices[0]?.finishReason, stopped);
  for (const finishMessage of ['Stopped at the stop sequence 4', 'The model stopped.', 7]) {
    const other = { ...body, candidates: [{ ...body.candidates[0], finishMessage }] };
    assert.deepEqual(decodeResponse(other, testContext()).choices[0]?.finishReason, {
      unified: 'stop',
      raw: 'STOP',
    });
  }
});

test('a known stop sequence goes out as finishMessage and reads back exactly, streamed and not', () => {
  const sequence = '"\n</answer>';
  const finishReason = { unified: 'stop', stopSequence: sequence } as const;
  const response: ChatResponse = {
    id: 'x',
    model: 'm',
    created: 1,
    choices: [{ index: 0, content: [{ type: 'text', text: 'hi' }], finishReason }],
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
  const body = encodeResponse(response, context);
  const back = decodeResponse(body, testContext()).choices[0]?.finishReason;
  assert.deepEqual(back, { unified: 'stop', raw: 'STOP', stopSequence: sequence });

  const encoder = createStreamEncoder(context);
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'x', model: 'm', created: 1 },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'hi' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason },
    { type: 'message-end', usage: response.usage },
  ];
  const sse = events.map((event) => encoder.encode(event)).join('');
  const finish = decodeSse([sse]).find((event) => event.type === 'finish');
  assert.deepEqual(finish, {
    type: 'finish',
    choice: 0,
    finishReason: { unified: 'stop', raw: 'STOP', stopSequence: sequence },
  });
});
