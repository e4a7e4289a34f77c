import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import { foldStream } from '../../ir/fold-stream.ts';
import type { ChatResponse, StreamEvent } from '../../ir/index.ts';
import { decodeResponse } from './decode-response.ts';
import { decodeSse, fixtureJson, fixtureSse, testContext } from './test-kit.ts';

const streamFixtures = [
  'text',
  'tool-calls',
  'multi-choice',
  'legacy-function',
  'compat-server',
  'stream-error',
] as const;

/** Errors compare by what a client would see; the rest structurally. */
function comparable(events: StreamEvent[]): unknown[] {
  return events.map((event) =>
    event.type === 'error' ? { type: 'error', kind: event.error.kind, message: event.error.message } : event,
  );
}

test('the text stream decodes to start, one text block, finish, usage with cached tokens, end', () => {
  const usage = {
    inputTokens: 1200,
    outputTokens: 40,
    cacheReadTokens: 1024,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  assert.deepEqual(decodeSse(fixtureSse('text.chunks.txt')), [
    { type: 'message-start', id: 'chatcmpl-AbC123', model: 'gpt-4o-2024-08-06', created: 1731000000 },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Héllo' },
    { type: 'text-delta', choice: 0, index: 0, text: ' 世界 🙂' },
    { type: 'text-delta', choice: 0, index: 0, text: '! How can I help?' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop', raw: 'stop' } },
    { type: 'usage', usage },
    { type: 'message-end', usage },
  ]);
});

test('tool-call fragments are keyed by index: one block per call, arguments in order', () => {
  const events = decodeSse(fixtureSse('tool-calls.chunks.txt'));
  assert.deepEqual(events.slice(0, 11), [
    { type: 'message-start', id: 'chatcmpl-Tool42', model: 'gpt-4o-2024-08-06', created: 1731000100 },
    { type: 'tool-call-start', choice: 0, index: 0, id: 'call_abc', name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"ci' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: 'ty":"Pa' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: 'ris"}' },
    // The next call starts and the first one's arguments are complete JSON: it is over.
    { type: 'tool-call-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: 'call_def', name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"city":' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '"Tokyo"}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
  ]);
});

test('interleaved choices get their own block numbering and finish separately', () => {
  const events = decodeSse(fixtureSse('multi-choice.chunks.txt'));
  const perChoice = (choice: number): unknown[] =>
    events.filter((event) => 'choice' in event && event.choice === choice).map((event) => event.type);
  assert.deepEqual(perChoice(0), ['text-start', 'text-delta', 'text-delta', 'text-end', 'finish']);
  assert.deepEqual(perChoice(1), ['text-start', 'text-delta', 'text-delta', 'text-end', 'finish']);
  assert.deepEqual(
    events.filter((event) => event.type === 'text-start'),
    [
      { type: 'text-start', choice: 0, index: 0 },
      { type: 'text-start', choice: 1, index: 0 },
    ],
  );
});

test('compatible servers: finish on the content chunk, empty tool_calls, no usage chunk', () => {
  const events = decodeSse(fixtureSse('compat-server.chunks.txt'));
  assert.deepEqual(events.slice(1), [
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Sure' },
    { type: 'text-delta', choice: 0, index: 0, text: ', checking.' },
    // Text and a call in one chunk: the call's start ends the text.
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: 'chatcmpl-tool-1a2b', name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"city": "Paris"}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    {
      type: 'message-end',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  ]);
});

test('legacy delta.function_call becomes one tool call with an invented id', () => {
  const events = decodeSse(fixtureSse('legacy-function.chunks.txt'));
  assert.deepEqual(events.slice(1, 6), [
    { type: 'tool-call-start', choice: 0, index: 0, id: 'call_gen0', name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"city"' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: ':"Paris"}' },
    { type: 'tool-call-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'function_call' } },
  ]);
});

test('an error chunk becomes an error event and nothing follows it', () => {
  const events = decodeSse(`${fixtureSse('stream-error.chunks.txt')}data: [DONE]\n\n`);
  assert.deepEqual(comparable(events).slice(-1), [
    { type: 'error', kind: 'internal', message: 'upstream: internal error' },
  ]);
  assert.equal(events.filter((event) => event.type === 'message-end').length, 0);
});

test('a stream that stops before [DONE] ends with an upstream error', () => {
  const sse = fixtureSse('text.chunks.txt').replace('data: [DONE]\n\n', '');
  assert.deepEqual(comparable(decodeSse(sse)).at(-1), {
    type: 'error',
    kind: 'upstream',
    message: 'upstream stream ended before completion',
  });
  assert.deepEqual(comparable(decodeSse('')), [
    { type: 'message-start', id: 'chatcmpl-gen0', model: '', created: 1731000999 },
    { type: 'error', kind: 'upstream', message: 'upstream stream ended before completion' },
  ]);
});

test('[DONE] finishes a choice the upstream never finished, closing its blocks', () => {
  const sse =
    'data: {"id":"x","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';
  assert.deepEqual(decodeSse(sse).slice(3), [
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'finish', choice: 0, finishReason: { unified: 'other' } },
    {
      type: 'message-end',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  ]);
});

test('preamble chunks without choices or usage are skipped; index-less fragments continue the last call', () => {
  const sse = [
    '{"id":"","object":"","created":0,"model":"","choices":[],"prompt_filter_results":[]}',
    '{"id":"c1","created":5,"model":"m","choices":[{"delta":{"tool_calls":[{"id":"t1","function":{"name":"f","arguments":"{"}}]}}]}',
    '{"id":"c1","created":5,"model":"m","choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}',
    '{"id":"c1","created":5,"model":"m","choices":[{"delta":{"refusal":"no"},"finish_reason":"stop"}]}',
    '[DONE]',
  ]
    .map((line) => `data: ${line}\n\n`)
    .join('');
  assert.deepEqual(decodeSse(sse), [
    { type: 'message-start', id: 'c1', model: 'm', created: 5 },
    { type: 'tool-call-start', choice: 0, index: 0, id: 't1', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '}' },
    { type: 'text-start', choice: 0, index: 1 },
    { type: 'text-delta', choice: 0, index: 1, text: 'no' },
    { type: 'tool-call-end', choice: 0, index: 0 },
    { type: 'text-end', choice: 0, index: 1 },
    // `stop` after tool calls (Ollama, llama.cpp) still tells other families a tool turn follows.
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'stop' } },
    {
      type: 'message-end',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  ]);
});

test('a chunk that is not JSON is an upstream error', () => {
  assert.deepEqual(
    comparable(decodeSse('data: {"id":"x","choices":[{"delta":{"content":"a"}}]}\n\ndata: {oops\n\n')).at(-1),
    {
      type: 'error',
      kind: 'upstream',
      message: 'upstream sent a stream chunk that is not JSON',
    },
  );
});

test('every decoded fixture stream is well-formed', () => {
  for (const name of streamFixtures) {
    assert.deepEqual(checkStreamEvents(decodeSse(fixtureSse(`${name}.chunks.txt`))), [], name);
  }
});

test('any byte split, inside multi-byte UTF-8 too, decodes to the same events', () => {
  for (const name of streamFixtures) {
    const bytes = new TextEncoder().encode(fixtureSse(`${name}.chunks.txt`));
    const expected = comparable(decodeSse([bytes]));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          const sorted = [...cuts].sort((left, right) => left - right);
          const chunks: Uint8Array[] = [];
          let start = 0;
          for (const cut of [...sorted, bytes.length]) {
            chunks.push(bytes.subarray(start, cut));
            start = cut;
          }
          assert.deepEqual(comparable(decodeSse(chunks)), expected);
        },
      ),
      { numRuns: 150 },
    );
  }
});

test('a decoded stream folds to the decoded non-streamed body of the same answer', () => {
  const withoutIdentity = (response: ChatResponse): ChatResponse => ({ ...response, id: '', created: 0 });
  for (const name of ['text', 'tool-calls', 'multi-choice', 'legacy-function', 'compat-server']) {
    const folded = withoutIdentity(foldStream(decodeSse(fixtureSse(`${name}.chunks.txt`))));
    const direct = withoutIdentity(decodeResponse(fixtureJson(`${name}.json`), testContext()));
    // The legacy stream has no usage chunk (clients of 2023 servers got none): compare content only.
    if (name === 'legacy-function') direct.usage = folded.usage;
    assert.deepEqual(folded, direct, name);
  }
});

/** An SSE stream of these chunk texts, then `[DONE]`. */
function sseOf(chunks: readonly string[]): string {
  return [...chunks, '[DONE]'].map((data) => `data: ${data}\n\n`).join('');
}

test('text chunks read without the parser decode exactly as parsed ones; anything unusual is parsed', () => {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":';
  const chunk = (choices: string, tail = ''): string => `${head}${choices}${tail}}`;
  const content = (index: number, text: string, logprobs = true): string =>
    `[{"index":${index},"delta":{"content":${JSON.stringify(text)}},${logprobs ? '"logprobs":null,' : ''}"finish_reason":null}]`;
  const chunks = [
    chunk('[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]'),
    chunk(content(0, 'plain')),
    chunk(content(0, ' with "quotes" and \\ escapes\n')),
    chunk(content(0, ' 世界 🙂', false), ',"usage":null'),
    chunk(content(0, 'é'), ',"usage":null,"obfuscation":"AbC1"'),
    chunk(content(0, 'x'), ',"obfuscation":"q\\"x"'),
    chunk(content(1, 'second choice')),
    chunk(content(12, 'choice twelve')),
    `{"id":"a{b[c","choices":${content(0, ' id with brackets')}}`,
    chunk(content(0, '')),
    chunk('[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]'),
    chunk(content(0, 'after finish')),
    chunk('[{"index":1,"delta":{},"finish_reason":"length"}]'),
    chunk('[{"index":12,"delta":{},"finish_reason":"stop"}]'),
    chunk('[]', ',"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}'),
  ];
  const fast = decodeSse(sseOf(chunks));
  // The same objects re-encoded with spaces: never the plain form, always parsed.
  const parsed = decodeSse(
    sseOf(chunks.map((text) => JSON.stringify(JSON.parse(text), null, 1).replaceAll('\n', ''))),
  );
  assert.deepEqual(fast, parsed);
  assert.deepEqual(checkStreamEvents(fast), []);
  assert.deepEqual(
    fast.filter((event) => event.type === 'text-delta').map((event) => [event.choice, event.text]),
    [
      [0, 'plain'],
      [0, ' with "quotes" and \\ escapes\n'],
      [0, ' 世界 🙂'],
      [0, 'é'],
      [0, 'x'],
      [1, 'second choice'],
      [12, 'choice twelve'],
      [0, ' id with brackets'],
    ],
  );
});

test('chunks that only look like plain text are refused as the parser refuses them', () => {
  const started = '{"id":"c1","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}';
  // U+0001: a raw control character (invalid in a JSON string) that an SSE line can carry.
  for (const broken of [
    '{"id":"c1","choices":[{"index":,"delta":{"content":"hi"},"finish_reason":null}]}',
    '{"id":"c1","choices":[{"index":01,"delta":{"content":"hi"},"finish_reason":null}]}',
    '{"id":"c1","choices":[{"index":0,"delta":{"content":"raw\u0001control"},"finish_reason":null}]}',
    '{"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}}',
    '{"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"obfuscation":"a\u0001"}',
  ]) {
    const events = decodeSse(`data: ${started}\n\ndata: ${broken}\n\n`);
    const last = events.at(-1);
    assert.ok(last?.type === 'error', broken);
    assert.match(last.error.message, /not JSON/);
    assert.equal(events.filter((event) => event.type === 'text-delta').length, 1, broken);
  }
});
