/**
 * AWS's event stream re-framed as SSE whatever the chunk boundaries: frames written by the SDK's
 * own codec, delivered whole, byte by byte and in random cuts, give the same SSE text; exception
 * frames become the error each codec's decoder reads; a corrupt frame is an error, not a crash.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { EventStreamToSse, FrameSplitter, maxFrameBytes, type StreamFraming } from './event-stream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const text = (value: string) => ({ type: 'string' as const, value });

function event(eventType: string, payload: object): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': text(eventType),
      ':content-type': text('application/json'),
      ':message-type': text('event'),
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

function exception(name: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': text(name),
      ':content-type': text('application/json'),
      ':message-type': text('exception'),
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

function chunkOf(anthropicEvent: object): Uint8Array {
  return event('chunk', { bytes: Buffer.from(JSON.stringify(anthropicEvent)).toString('base64'), p: 'abc' });
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

function reframe(framing: StreamFraming, bytes: Uint8Array, cuts: number[]): string {
  const reframer = new EventStreamToSse(new EventStreamCodec(toUtf8, fromUtf8), framing, toUtf8);
  let sse = '';
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    sse += reframer.push(bytes.subarray(start, cut));
    start = cut;
  }
  return sse;
}

const converseStream = concat([
  event('messageStart', { role: 'assistant', p: 'abcd' }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Héllo 👋' } }),
  event('contentBlockStop', { contentBlockIndex: 0 }),
  event('messageStop', { stopReason: 'end_turn' }),
  event('metadata', {
    usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    metrics: { latencyMs: 9 },
  }),
]);

test('ConverseStream events become named SSE events, however the bytes are cut', () => {
  const whole = reframe('converse', converseStream, []);
  assert.equal(whole.split('\n\n').length - 1, 5);
  assert.ok(whole.startsWith('event: messageStart\ndata: {"role":"assistant","p":"abcd"}\n\n'));
  assert.ok(
    whole.includes('event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Héllo 👋"}}\n\n'),
  );
  const byteByByte = Array.from({ length: converseStream.length - 1 }, (_, index) => index + 1);
  assert.equal(reframe('converse', converseStream, byteByByte), whole);
  for (let trial = 0; trial < 20; trial++) {
    const cuts = Array.from({ length: 6 }, () => Math.floor(Math.random() * converseStream.length)).sort(
      (a, b) => a - b,
    );
    assert.equal(reframe('converse', converseStream, cuts), whole, `cuts ${cuts.join(',')}`);
  }
});

test('InvokeModel chunks: the base64 Anthropic event as SSE; invocation metrics as usage before message_stop', () => {
  const bytes = concat([
    chunkOf({
      type: 'message_start',
      message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } },
    }),
    chunkOf({
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': {
        inputTokenCount: 3,
        outputTokenCount: 7,
        invocationLatency: 10,
        firstByteLatency: 5,
      },
    }),
  ]);
  const sse = reframe('invoke', bytes, [7, 50]);
  const events = sse.split('\n\n').filter((block) => block !== '');
  assert.equal(
    events[0],
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3,"output_tokens":1}}}',
  );
  assert.equal(
    events[1],
    'event: message_delta\ndata: {"type":"message_delta","delta":{},"usage":{"input_tokens":3,"output_tokens":7}}',
  );
  assert.match(events[2] ?? '', /^event: message_stop\n/);
});

test('exception frames become each decoder’s error event', () => {
  assert.equal(
    reframe('converse', exception('throttlingException', 'Too many requests'), [3]),
    'event: throttlingException\ndata: {"message":"Too many requests"}\n\n',
  );
  assert.equal(
    reframe('converse', exception('modelTimeoutException', 'slow'), []),
    'event: internalServerException\ndata: {"message":"slow"}\n\n',
  );
  assert.equal(
    reframe('invoke', exception('throttlingException', 'Too many requests'), []),
    'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Too many requests"}}\n\n',
  );
});

test('a corrupt frame is an error event', () => {
  const corrupt = new Uint8Array(converseStream);
  corrupt[20] = (corrupt[20] ?? 0) ^ 0xff;
  assert.match(
    reframe('converse', corrupt, []),
    /^event: internalServerException\ndata: \{"message":"the upstream sent a malformed event stream"\}/,
  );
});

test('a frame declaring more than AWS allows is refused at its prelude, before its bytes are held', () => {
  const splitter = new FrameSplitter();
  const prelude = new Uint8Array(4);
  new DataView(prelude.buffer).setUint32(0, maxFrameBytes + 1, false);
  assert.throws(() => splitter.push(prelude), /over the cap/);
});

test('frames cut into single bytes come out whole and in order', () => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const frames = ['one', 'two', 'three'].map((text) => codec.encode({ headers: {}, body: fromUtf8(text) }));
  const bytes = new Uint8Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let at = 0;
  for (const frame of frames) {
    bytes.set(frame, at);
    at += frame.length;
  }
  const splitter = new FrameSplitter();
  const out: Uint8Array[] = [];
  for (const byte of bytes) out.push(...splitter.push(Uint8Array.of(byte)));
  assert.deepEqual(
    out.map((frame) => toUtf8(codec.decode(frame).body)),
    ['one', 'two', 'three'],
  );
});
