import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatResponse, StreamEvent } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeSse, fixtureJson, fixtureSse, testContext } from './test-kit.ts';

const context: ResponseContext = { model: 'm', includeUsage: false, legacyFunctions: false };
const stopped = { unified: 'stop', raw: 'stop', stopSequence: '4' } as const;

test("a choice's stop_reason (vLLM, SGLang) is the stop sequence that ended it", () => {
  const response = decodeResponse(fixtureJson('stop-sequence.json'), testContext());
  assert.deepEqual(response.choices[0]?.finishReason, stopped);
  const finish = decodeSse(fixtureSse('stop-sequence.chunks.txt')).find((event) => event.type === 'finish');
  assert.deepEqual(finish, { type: 'finish', choice: 0, finishReason: stopped });
});

test('without stop_reason (OpenAI) or on another finish no stop sequence is known', () => {
  const body = fixtureJson('stop-sequence.json') as { choices: Array<Record<string, unknown>> };
  const plain = { ...body, choices: [{ ...body.choices[0], stop_reason: null }] };
  assert.deepEqual(decodeResponse(plain, testContext()).choices[0]?.finishReason, {
    unified: 'stop',
    raw: 'stop',
  });
  const cut = { ...body, choices: [{ ...body.choices[0], finish_reason: 'length' }] };
  assert.equal(decodeResponse(cut, testContext()).choices[0]?.finishReason.stopSequence, undefined);
});

test('a known stop sequence goes out as the choice stop_reason, streamed and not', () => {
  const response: ChatResponse = {
    id: 'x',
    model: 'm',
    created: 1,
    choices: [{ index: 0, content: [{ type: 'text', text: '1, 2, 3, ' }], finishReason: stopped }],
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
  const body = encodeResponse(response, context) as { choices: Array<Record<string, unknown>> };
  assert.equal(body.choices[0]!.finish_reason, 'stop');
  assert.equal(body.choices[0]!.stop_reason, '4');
  const encoder = createStreamEncoder(context);
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'x', model: 'm', created: 1 },
    { type: 'finish', choice: 0, finishReason: stopped },
  ];
  const text = events.map((event) => encoder.encode(event)).join('');
  assert.match(text, /"finish_reason":"stop","stop_reason":"4"/);
  const natural = encodeResponse(
    { ...response, choices: [{ ...response.choices[0]!, finishReason: { unified: 'stop' } }] },
    context,
  );
  assert.equal(Object.hasOwn((natural as { choices: object[] }).choices[0]!, 'stop_reason'), false);
});
