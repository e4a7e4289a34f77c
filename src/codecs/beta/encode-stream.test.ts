import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext } from '../codec.ts';
import type { StreamEvent, Usage } from '../../ir/index.ts';
import { GatewayError } from '../../ir/index.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeChunks } from './test-kit.ts';

const context: ResponseContext = { model: 'client-model', includeUsage: false, legacyFunctions: false };

function encodeAll(events: readonly StreamEvent[]): string {
  const encoder = createStreamEncoder(context);
  return events.map((event) => encoder.encode(event)).join('');
}

const startUsage: Usage = { inputTokens: 130, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 100 };
const finalUsage: Usage = { inputTokens: 130, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 100 };

/** Canonical events in the form the beta decoder produces them. */
const canonical: StreamEvent[] = [
  { type: 'message-start', id: 'msg_1', model: 'client-model', created: 1_750_000_000, usage: startUsage },
  { type: 'text-start', choice: 0, index: 0 },
  { type: 'text-delta', choice: 0, index: 0, text: 'Hé "q" 🙂\n' },
  { type: 'text-end', choice: 0, index: 0 },
  { type: 'tool-call-start', choice: 0, index: 1, id: 'toolu_9', name: 'f' },
  { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"a":' },
  { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '1}' },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
  { type: 'usage', usage: finalUsage },
  { type: 'message-end', usage: finalUsage },
];

test('encodes the exact beta SSE a client expects', () => {
  const expected = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"client-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":0,"cache_creation_input_tokens":100,"cache_read_input_tokens":0}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé \\"q\\" 🙂\\n"}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"f","input":{}}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12,"input_tokens":30,"cache_creation_input_tokens":100,"cache_read_input_tokens":0}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join('');
  assert.equal(encodeAll(canonical), expected);
});

test('the encoded stream decodes back to the same events', () => {
  assert.deepEqual(decodeChunks([encodeAll(canonical)]), canonical);
});

test('foreign events: ids get msg_, zero usage without one, other choices ignored, B indices sequential', () => {
  const text = encodeAll([
    { type: 'message-start', id: 'chatcmpl-7', model: 'a-2', created: 1 },
    { type: 'text-start', choice: 1, index: 0 },
    { type: 'text-delta', choice: 1, index: 0, text: 'ignored' },
    { type: 'tool-call-start', choice: 0, index: 3, id: 'call_1', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 3, argumentsDelta: '{}' },
    { type: 'text-end', choice: 1, index: 0 },
    { type: 'finish', choice: 1, finishReason: { unified: 'stop' } },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop', raw: 'stop', stopSequence: 'END' } },
    { type: 'message-end', usage: finalUsage },
  ]);
  const events = decodeChunks([text]);
  assert.deepEqual(events, [
    {
      type: 'message-start',
      id: 'msg_chatcmpl-7',
      model: 'client-model',
      created: 1_750_000_000,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    { type: 'tool-call-start', choice: 0, index: 0, id: 'call_1', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{}' },
    // The encoder closed the block the source left open at finish.
    { type: 'tool-call-end', choice: 0, index: 0 },
    {
      type: 'finish',
      choice: 0,
      finishReason: { unified: 'stop', raw: 'stop_sequence', stopSequence: 'END' },
    },
    { type: 'usage', usage: finalUsage },
    { type: 'message-end', usage: finalUsage },
  ]);
  assert.doesNotMatch(text, /ignored/);
});

test('an error event becomes event: error with the beta error object', () => {
  const encoder = createStreamEncoder(context);
  assert.equal(
    encoder.encode({ type: 'error', error: new GatewayError('overloaded', 'upstream: Overloaded') }),
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"upstream: Overloaded"}}\n\n',
  );
});
