import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { GatewayError, type StreamEvent, type Usage } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeSse } from './test-kit.ts';

const usage: Usage = { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1024, cacheWriteTokens: 0 };

/**
 * The shape the decoder produces: text ends when the first call starts, a call ends when the next
 * starts (its arguments being complete JSON), the last call at finish.
 */
const canonical: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-1', model: 'my-model', created: 1731000000 },
  { type: 'text-start', choice: 0, index: 0 },
  { type: 'text-delta', choice: 0, index: 0, text: 'Let me check ' },
  { type: 'text-delta', choice: 0, index: 0, text: 'the wéather 🌦' },
  { type: 'text-end', choice: 0, index: 0 },
  { type: 'tool-call-start', choice: 0, index: 1, id: 'call_abc', name: 'get_w' },
  { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"ci' },
  { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: 'ty":"Paris"}' },
  { type: 'tool-call-end', choice: 0, index: 1 },
  { type: 'tool-call-start', choice: 0, index: 2, id: 'call_def', name: 'get_w' },
  { type: 'tool-call-delta', choice: 0, index: 2, argumentsDelta: '{"city":"Tokyo"}' },
  { type: 'tool-call-end', choice: 0, index: 2 },
  { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
  { type: 'usage', usage },
  { type: 'message-end', usage },
];

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return text.trim() !== '';
  } catch {
    return false;
  }
}

function context(overrides: Partial<ResponseContext> = {}): ResponseContext {
  return { model: 'my-model', includeUsage: true, legacyFunctions: false, ...overrides };
}

function encodeAll(events: StreamEvent[], responseContext: ResponseContext): string {
  const encoder = createStreamEncoder(responseContext);
  return events.map((event) => encoder.encode(event)).join('');
}

const head =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"my-model","choices":';

test('chunks: role first, content deltas, indexed tool calls, finish, usage chunk, [DONE]', () => {
  const lines = encodeAll(canonical, context()).split('\n\n');
  assert.deepEqual(lines, [
    `data: ${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"content":"Let me check "},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"content":"the wéather 🌦"},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_w","arguments":""}}]},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"ci"}}]},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\\":\\"Paris\\"}"}}]},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_def","type":"function","function":{"name":"get_w","arguments":""}}]},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\\"city\\":\\"Tokyo\\"}"}}]},"finish_reason":null}],"usage":null}`,
    `data: ${head}[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}`,
    `data: ${head}[],"usage":{"prompt_tokens":1200,"completion_tokens":40,"total_tokens":1240,"prompt_tokens_details":{"cached_tokens":1024},"cached_tokens":1024}}`,
    'data: [DONE]',
    '',
  ]);
});

test('without include_usage: no usage field, no usage chunk; the id gets the chatcmpl- prefix', () => {
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'msg_01', model: 'x', created: 7 },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'hi' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'length', raw: 'max_tokens' } },
    { type: 'message-end', usage },
  ];
  const top =
    '{"id":"chatcmpl-msg_01","object":"chat.completion.chunk","created":7,"model":"shown","choices":';
  assert.equal(
    encodeAll(events, context({ model: 'shown', includeUsage: false })),
    `data: ${top}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n` +
      `data: ${top}[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n` +
      `data: ${top}[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n` +
      'data: [DONE]\n\n',
  );
});

test('legacy clients get the first call as delta.function_call and finish_reason function_call', () => {
  const output = encodeAll(canonical, context({ legacyFunctions: true, includeUsage: false }));
  const deltas = output
    .split('\n\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line): unknown => JSON.parse(line.slice(6)).choices[0]);
  assert.deepEqual(deltas.slice(3), [
    { index: 0, delta: { function_call: { name: 'get_w', arguments: '' } }, finish_reason: null },
    { index: 0, delta: { function_call: { arguments: '{"ci' } }, finish_reason: null },
    { index: 0, delta: { function_call: { arguments: 'ty":"Paris"}' } }, finish_reason: null },
    { index: 0, delta: {}, finish_reason: 'function_call' },
  ]);
});

test('an error event is an A error body in a data line, with no [DONE]', () => {
  const encoder = createStreamEncoder(context());
  encoder.encode(canonical[0]!);
  const output = encoder.encode({
    type: 'error',
    error: new GatewayError('overloaded', 'upstream: overloaded, retry later'),
  });
  assert.equal(
    output,
    'data: {"error":{"message":"upstream: overloaded, retry later","type":"server_error","param":null,"code":"overloaded"}}\n\n',
  );
});

test('encoded canonical events decode back to the same events', () => {
  assert.deepEqual(decodeSse(encodeAll(canonical, context())), canonical);
});

test('round trip holds for generated streams with several choices', () => {
  const choiceContent = fc.record({
    texts: fc.array(fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme' }), { maxLength: 4 }),
    calls: fc.array(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 3 }), { maxLength: 3 }),
    finish: fc.constantFrom('stop', 'length', 'content_filter'),
  });
  fc.assert(
    fc.property(fc.array(choiceContent, { minLength: 1, maxLength: 3 }), (choices) => {
      const events: StreamEvent[] = [
        { type: 'message-start', id: 'chatcmpl-1', model: 'my-model', created: 1731000000 },
      ];
      choices.forEach((content, choice) => {
        let block = 0;
        let open: Array<{ event: StreamEvent; args: string | undefined }> = [];
        if (content.texts.length > 0) {
          const index = block++;
          events.push({ type: 'text-start', choice, index });
          for (const text of content.texts) events.push({ type: 'text-delta', choice, index, text });
          open.push({ event: { type: 'text-end', choice, index }, args: undefined });
        }
        content.calls.forEach((fragments, call) => {
          // The decoder's rule: a call's start ends the text and a previous call whose arguments parse.
          const last = open.at(-1);
          const ends = open.filter(
            (entry) => entry.args === undefined || (entry === last && parses(entry.args)),
          );
          events.push(...ends.map((entry) => entry.event));
          open = open.filter((entry) => !ends.includes(entry));
          const index = block++;
          events.push({ type: 'tool-call-start', choice, index, id: `call_${choice}_${call}`, name: 'f' });
          for (const argumentsDelta of fragments)
            events.push({ type: 'tool-call-delta', choice, index, argumentsDelta });
          open.push({ event: { type: 'tool-call-end', choice, index }, args: fragments.join('') });
        });
        const unified =
          content.calls.length > 0
            ? 'tool-calls'
            : content.finish === 'stop'
              ? 'stop'
              : content.finish === 'length'
                ? 'length'
                : 'content-filter';
        const raw = content.calls.length > 0 ? 'tool_calls' : content.finish;
        events.push(...open.map((entry) => entry.event), {
          type: 'finish',
          choice,
          finishReason: { unified, raw },
        });
      });
      events.push({ type: 'usage', usage }, { type: 'message-end', usage });
      assert.deepEqual(decodeSse(encodeAll(events, context())), events);
    }),
    { numRuns: 200 },
  );
});
