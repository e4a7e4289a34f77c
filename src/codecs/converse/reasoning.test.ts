import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import { foldStream } from '../../ir/fold-stream.ts';
import type { ChatResponse, StreamEvent } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import { converseWire } from './index.ts';

const context = { generateId: (prefix: string) => `${prefix}1`, now: () => 1_700_000_000_000 };
const responseContext = { model: 'm', includeUsage: true, legacyFunctions: false };
const usage = {
  inputTokens: 5,
  outputTokens: 9,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 4,
};
const content = [
  { type: 'reasoning', text: 'Let me see.', signature: 'c2ln' },
  { type: 'text', text: 'Answer.' },
] as const;

test('a thought is a reasoningContent block and reads back with its signature', () => {
  const response: ChatResponse = {
    id: 'x',
    model: 'm',
    created: 1_700_000_000,
    choices: [{ index: 0, content: [...content], finishReason: { unified: 'stop' } }],
    usage,
  };
  const body = converseWire.encodeResponse(response, responseContext);
  assert.deepEqual((body.output as { message: { content: unknown[] } }).message.content[0], {
    reasoningContent: { reasoningText: { text: 'Let me see.', signature: 'c2ln' } },
  });
  assert.deepEqual(converseWire.decodeResponse(body, context).choices[0]?.content, content);
});

test('a streamed thought: reasoningContent deltas, the signature last, read back as one block', () => {
  const encoder = converseWire.createStreamEncoder(responseContext);
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'x', model: 'm', created: 0 },
    { type: 'reasoning-start', choice: 0, index: 0 },
    { type: 'reasoning-delta', choice: 0, index: 0, text: 'Let me ' },
    { type: 'reasoning-delta', choice: 0, index: 0, text: 'see.' },
    { type: 'reasoning-end', choice: 0, index: 0, signature: 'c2ln' },
    { type: 'text-start', choice: 0, index: 1 },
    { type: 'text-delta', choice: 0, index: 1, text: 'Answer.' },
    { type: 'text-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop' } },
    { type: 'message-end', usage },
  ];
  const sse = events.map((event) => encoder.encode(event)).join('');
  const decoded: StreamEvent[] = [];
  const decoder = converseWire.createStreamDecoder(context);
  const parser = new SseParser();
  parser.push(sse, (message) => decoder.push(message, (event) => decoded.push(event)));
  decoder.end((event) => decoded.push(event));
  assert.deepEqual(checkStreamEvents(decoded), []);
  assert.deepEqual(foldStream(decoded).choices[0]?.content, content);
});
