import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { AnswerPart, ChatResponse, StreamEvent } from '../../ir/index.ts';
import { GatewayError } from '../../ir/index.ts';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import { foldStream } from '../../ir/fold-stream.ts';
import { decodeResponse } from './decode-response.ts';
import { decodeChunks, decodeContext, fixture, sseFromChunks, splitAt } from './test-kit.ts';

const streams = ['tool-use', 'unicode-text', 'thinking', 'overloaded-midstream'];

function decodeFixture(name: string): StreamEvent[] {
  return decodeChunks([sseFromChunks(`${name}.chunks.txt`)]);
}

test('decodes the reference stream: ping skipped, leading "" fragment silent, cumulative usage', () => {
  const inputSide = { inputTokens: 1821, cacheReadTokens: 1800, cacheWriteTokens: 0 };
  const final = { ...inputSide, outputTokens: 90 };
  assert.deepEqual(decodeFixture('tool-use'), [
    {
      type: 'message-start',
      id: 'msg_01Aq9w938a90dw8q',
      model: 'b-1-20250101',
      created: 1_750_000_000,
      usage: { ...inputSide, outputTokens: 1 },
    },
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Checking.' },
    { type: 'text-end', choice: 0, index: 0 },
    { type: 'tool-call-start', choice: 0, index: 1, id: 'toolu_01A', name: 'get_w' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"city": "Par' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: 'is"}' },
    { type: 'tool-call-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
    { type: 'usage', usage: final },
    { type: 'message-end', usage: final },
  ]);
});

test('a thinking block is a reasoning block, its signature given with its end', () => {
  const events = decodeFixture('thinking');
  assert.deepEqual(
    events.filter(
      (event) =>
        event.type.startsWith('text') || event.type.startsWith('tool') || event.type.startsWith('reasoning'),
    ),
    [
      { type: 'reasoning-start', choice: 0, index: 0 },
      { type: 'reasoning-delta', choice: 0, index: 0, text: '2+2 is 4.' },
      { type: 'reasoning-end', choice: 0, index: 0, signature: 'EqQBCgIYAhIM' },
      { type: 'text-start', choice: 0, index: 1 },
      { type: 'text-delta', choice: 0, index: 1, text: '4' },
      { type: 'text-end', choice: 0, index: 1 },
    ],
  );
});

test('message_delta usage is cumulative: input-side counts are not added twice', () => {
  const events = decodeFixture('unicode-text');
  assert.deepEqual(events.at(-1), {
    type: 'message-end',
    usage: { inputTokens: 130, outputTokens: 17, cacheReadTokens: 0, cacheWriteTokens: 100 },
  });
  assert.deepEqual(events.at(-3), {
    type: 'finish',
    choice: 0,
    finishReason: { unified: 'stop', raw: 'stop_sequence', stopSequence: 'END' },
  });
});

test('any byte split (inside multi-byte UTF-8 too) gives identical events', () => {
  for (const name of streams) {
    const bytes = new TextEncoder().encode(sseFromChunks(`${name}.chunks.txt`));
    const expected = decodeChunks([bytes]);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          assert.deepEqual(decodeChunks(splitAt(bytes, cuts)), expected);
        },
      ),
      { numRuns: 150 },
    );
  }
});

test('every single cut of the multi-byte stream gives identical events', () => {
  const bytes = new TextEncoder().encode(sseFromChunks('unicode-text.chunks.txt'));
  const expected = decodeChunks([bytes]);
  for (let cut = 1; cut < bytes.length; cut++)
    assert.deepEqual(decodeChunks(splitAt(bytes, [cut])), expected);
});

test('every decoded stream is well-formed', () => {
  for (const name of streams) assert.deepEqual(checkStreamEvents(decodeFixture(name)), [], name);
});

function normalise(response: ChatResponse): unknown {
  const part = (content: AnswerPart): AnswerPart =>
    content.type === 'tool-call'
      ? { ...content, arguments: JSON.stringify(JSON.parse(content.arguments)) }
      : content;
  return {
    model: response.model,
    usage: response.usage,
    choices: response.choices.map((choice) => ({ ...choice, content: choice.content.map(part) })),
  };
}

test('fold(decoded stream) equals decodeResponse(equivalent message), up to ids/created', () => {
  for (const name of ['tool-use', 'unicode-text', 'thinking']) {
    const folded = foldStream(decodeFixture(name));
    const direct = decodeResponse(fixture(`${name}.json`), decodeContext);
    // The reference's tool-use stream is its JSON example without the thinking block.
    if (name === 'tool-use')
      for (const choice of direct.choices)
        choice.content = choice.content.filter((part) => part.type !== 'reasoning');
    assert.deepEqual(normalise(folded), normalise(direct), name);
  }
});

test('event: error mid-stream becomes an error event, and nothing after it', () => {
  const events = decodeFixture('overloaded-midstream');
  assert.deepEqual(events.slice(1, 3), [
    { type: 'text-start', choice: 0, index: 0 },
    { type: 'text-delta', choice: 0, index: 0, text: 'Hel' },
  ]);
  const last = events.at(-1);
  assert.equal(events.length, 4);
  assert.ok(last?.type === 'error');
  assert.equal(last.error.kind, 'overloaded');
  assert.equal(last.error.message, 'upstream: overloaded, retry later');
});

test('a stream that ends before message_stop ends with an upstream error', () => {
  const text = sseFromChunks('tool-use.chunks.txt');
  const events = decodeChunks([text.slice(0, text.indexOf('event: message_stop'))]);
  assert.deepEqual(events.at(-1), {
    type: 'error',
    error: new GatewayError('upstream', 'upstream stream ended before completion'),
  });
  assert.deepEqual(checkStreamEvents(events), []);
});

test('an error before message_start still yields a well-formed stream', () => {
  const events = decodeChunks([
    'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"slow"}}\n\n',
  ]);
  assert.equal(events.length, 2);
  assert.deepEqual(events[0], {
    type: 'message-start',
    id: 'msg_generated',
    model: '',
    created: 1_750_000_000,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  assert.ok(events[1]?.type === 'error' && events[1].error.kind === 'rate_limited');
  assert.deepEqual(checkStreamEvents(events), []);
});

test('unknown events and delta types are tolerated; malformed JSON is an upstream error', () => {
  const text = sseFromChunks('unicode-text.chunks.txt');
  const extra =
    'event: content_block_future\ndata: {"type":"content_block_future","index":0}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}\n\n';
  const split = text.indexOf('event: content_block_stop');
  const events = decodeChunks([text.slice(0, split) + extra + text.slice(split)]);
  assert.deepEqual(events, decodeFixture('unicode-text'));
  const broken = decodeChunks(['event: message_start\ndata: {"type":\n\n']);
  assert.ok(broken.at(-1)?.type === 'error');
});

test('blocks left open by the upstream are closed before finish', () => {
  const events = decodeChunks([
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_x","model":"m","usage":{"input_tokens":1,"output_tokens":0}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{"a":1}}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ]);
  assert.deepEqual(checkStreamEvents(events), []);
  assert.deepEqual(events.slice(1, 4), [
    { type: 'tool-call-start', choice: 0, index: 0, id: 't', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"a":1}' },
    { type: 'tool-call-end', choice: 0, index: 0 },
  ]);
});

test('text deltas read without the JSON parser equal the parsed ones, escapes and odd shapes included', () => {
  const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = event('message_start', {
    type: 'message_start',
    message: { id: 'msg_1', model: 'b', usage: { input_tokens: 3, output_tokens: 0 } },
  });
  const openText = (index: number): string =>
    event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
  const stop = event('message_stop', { type: 'message_stop' });
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 6 }), (texts) => {
      // Compact (the fast form) and spaced (the parser's) renderings of the same deltas.
      const compact = texts.map((text) =>
        event('content_block_delta', {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'text_delta', text },
        }),
      );
      const spaced = texts.map(
        (text) =>
          `event: content_block_delta\ndata: {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": ${JSON.stringify(text)}}}\n\n`,
      );
      const fast = decodeChunks([start + openText(1) + compact.join('') + stop]);
      const parsed = decodeChunks([start + openText(1) + spaced.join('') + stop]);
      assert.deepEqual(fast, parsed);
      const deltas = fast.flatMap((item) => (item.type === 'text-delta' ? [item.text] : []));
      assert.deepEqual(
        deltas,
        texts.filter((text) => text !== ''),
      );
    }),
    { seed: 11, numRuns: 300 },
  );
  // Look-alikes that are not plain text deltas still go through the parser.
  const tricky = [
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a\\"b"}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x","extra":"y"}}',
    '{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"bad"}}',
    '{"type":"content_block_delta","index":9,"delta":{"type":"text_delta","text":"no such block"}}',
  ].map((data) => `event: content_block_delta\ndata: ${data}\n\n`);
  const events = decodeChunks([start + openText(1) + tricky.join('') + stop]);
  const texts = events.flatMap((item) => (item.type === 'text-delta' ? [item.text] : []));
  assert.deepEqual(texts, ['a"b', 'x']);
  const failure = events.find((item) => item.type === 'error');
  assert.match(failure?.type === 'error' ? failure.error.message : '', /malformed stream event/);
});

test('text deltas of interleaved blocks each reach their own block, however the index is written', () => {
  const event = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;
  const start = event('message_start', '{"type":"message_start","message":{"id":"msg_1","model":"b"}}');
  const open = (index: number): string =>
    event(
      'content_block_start',
      `{"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}`,
    );
  // The fast reader keeps the last delta's head: switching blocks, and an index spelled `01`, must not reuse it.
  const delta = (index: string, text: string): string =>
    event(
      'content_block_delta',
      `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":"${text}"}}`,
    );
  const body = [
    start,
    open(0),
    open(1),
    delta('0', 'a'),
    delta('0', 'b'),
    delta('1', 'c'),
    delta('0', 'd'),
    delta('01', 'e'),
    delta('1', 'f'),
    delta('7', 'nowhere'),
    delta('0', 'g'),
    event('message_stop', '{"type":"message_stop"}'),
  ].join('');
  const deltas = decodeChunks([body]).flatMap((item) =>
    item.type === 'text-delta' ? [`${item.index}:${item.text}`] : [],
  );
  assert.deepEqual(deltas, ['0:a', '0:b', '1:c', '0:d', '1:e', '1:f', '0:g']);
});
