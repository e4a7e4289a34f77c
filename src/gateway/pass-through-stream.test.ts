import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext } from '../codecs/codec.ts';
import { codecs } from '../../test/kit/spec-families.ts';
import { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { createUpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { decodeContext } from './decode-context.ts';
import type { StreamOutcome } from './delivery.ts';
import { streamPassThrough } from './pass-through-stream.ts';
import type { ResponseSink } from './response-sink.ts';

const context: ResponseContext = { model: 'asked', includeUsage: true, legacyFunctions: false };

const chunk = (body: string): string =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-2025","choices":[${body}]}\n\n`;
const alphaStream = [
  chunk('{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}'),
  chunk('{"index":0,"delta":{"content":"Grüße, \\"finish_reason\\":\\"stop\\" 🌍"},"finish_reason":null}'),
  chunk('{"index":0,"delta":{},"finish_reason":"stop"}'),
  'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-2025","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}\n\n',
  'data: [DONE]\n\n',
].join('');

function upstream(reads: readonly Uint8Array[]): UpstreamResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: (async function* () {
      for (const read of reads) yield await Promise.resolve(read);
    })(),
    text: () => Promise.resolve(''),
    cancel: () => undefined,
  };
}

async function forward(
  family: 'alpha' | 'beta' | 'gamma',
  reads: readonly Uint8Array[],
  maxEventBytes?: number,
): Promise<{ text: string; outcome: StreamOutcome }> {
  const signal = new AbortController().signal;
  const timers = new CallTimers({ connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 }, signal);
  let text = '';
  const sink: ResponseSink = {
    headers: {},
    started: false,
    sendJson: () => undefined,
    startStream: () => undefined,
    write: (written) => {
      text += written;
      return undefined;
    },
    end: () => undefined,
  };
  try {
    const outcome = await streamPassThrough(
      {
        surface: codecs[family],
        decoder: codecs[family].createStreamDecoder(decodeContext),
        context,
        scrubber: createUpstreamErrorScrubber(['sk-upstream-secret'], []),
      },
      upstream(reads),
      {
        sink,
        signal,
        timers,
        begin: () => undefined,
        ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
      },
    );
    return { text, outcome };
  } finally {
    timers.stop();
  }
}

test('each read goes on as it came, only the model renamed; usage and finish read exactly', async () => {
  const bytes = Buffer.from(alphaStream);
  const expected = alphaStream.replaceAll('"model":"up-2025"', '"model":"asked"');
  // Every split point, those inside the multi-byte characters included.
  for (let at = 1; at < bytes.length; at += 1) {
    const { text, outcome } = await forward('alpha', [bytes.subarray(0, at), bytes.subarray(at)]);
    assert.equal(text, expected, `split at byte ${at}`);
    assert.deepEqual(outcome.usage, {
      inputTokens: 7,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    assert.deepEqual([outcome.completed, outcome.finishReasons], [true, ['stop']]);
  }
});

test('an upstream error event reaches the client re-encoded in the family shape, its secret scrubbed', async () => {
  const events = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"up","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"key sk-upstream-secret is busy"}}\n\n',
  ];
  const { text, outcome } = await forward('beta', [Buffer.from(events.join(''))]);
  assert.ok(text.startsWith(events[0]!.replace('"model":"up"', '"model":"asked"')));
  assert.ok(text.includes(events[2]!), 'content events go on as they came');
  assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
  assert.ok(!text.includes('sk-upstream-secret'));
  assert.equal(outcome.error?.kind, 'overloaded');
  assert.equal(outcome.usage?.inputTokens, 5);
});

test('an event past the size cap ends the stream with the family error event', async () => {
  const first = chunk('{"index":0,"delta":{"content":"ok"},"finish_reason":null}');
  const huge = chunk(`{"index":0,"delta":{"content":"${'x'.repeat(4000)}"},"finish_reason":null}`);
  const { text, outcome } = await forward('alpha', [Buffer.from(first), Buffer.from(huge)], 1000);
  assert.ok(text.startsWith(first.replace('"model":"up-2025"', '"model":"asked"')));
  assert.match(text, /data: \{"error":\{.*exceeded the gateway's limit of 1000 bytes/);
  assert.equal(outcome.completed, false);
});

test('a stream with \\r\\n line ends is read whole and still forwarded', async () => {
  const { text, outcome } = await forward('alpha', [Buffer.from(alphaStream.replaceAll('\n', '\r\n'))]);
  assert.equal(text, alphaStream.replaceAll('"model":"up-2025"', '"model":"asked"'));
  assert.equal(outcome.completed, true);
  assert.equal(outcome.usage?.outputTokens, 3);
});

test('a chunk whose first choice finished is read, though its last one is unfinished', async () => {
  const events = [
    chunk('{"index":0,"delta":{"content":"a"},"finish_reason":null}'),
    chunk(
      '{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{"content":"b"},"finish_reason":null}',
    ),
    chunk('{"index":1,"delta":{},"finish_reason":"length"}'),
    'data: [DONE]\n\n',
  ];
  const { text, outcome } = await forward('alpha', [Buffer.from(events.join(''))]);
  assert.deepEqual(outcome.finishReasons, ['stop', 'length']);
  assert.ok(!text.includes('up-2025'));
});

test('C: every chunk renamed, usage and the finish read from the chunks that carry them', async () => {
  const part = (text: string, tail: string): string =>
    `data: {"candidates":[{"content":{"parts":[{"text":"${text}"}],"role":"model"}${tail},"index":0}],"modelVersion":"gemini-up-001","responseId":"r1"${tail === '' ? '' : ',"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}'}}\n\n`;
  const stream = part('Hel', '') + part('lo', '') + part('!', ',"finishReason":"STOP"');
  const { text, outcome } = await forward('gamma', [Buffer.from(stream)]);
  assert.equal(text, stream.replaceAll('"modelVersion":"gemini-up-001"', '"modelVersion":"asked"'));
  assert.deepEqual([outcome.completed, outcome.finishReasons], [true, ['STOP']]);
  assert.deepEqual(outcome.usage, {
    inputTokens: 4,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
});
