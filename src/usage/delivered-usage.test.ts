import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext } from '../codecs/codec.ts';
import { decodeContext } from '../gateway/decode-context.ts';
import type { DeliveredText } from '../gateway/delivery.ts';
import { streamPassThrough } from '../gateway/pass-through-stream.ts';
import type { ResponseSink } from '../gateway/response-sink.ts';
import { streamTranslated, type StreamControl } from '../gateway/stream-pipeline.ts';
import type { StreamEvent } from '../ir/index.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { responsesSurface } from '../surfaces/responses/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { createUpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { deliveredOutputTokens } from './delivered-usage.ts';
import { codecs, specFamilies, type SpecFamily } from '../../test/kit/spec-families.ts';

const words = ['Once', ' upon', ' a', ' time', ',', ' a', ' gateway', ' counted', ' every', ' token', '.'];
const context: ResponseContext = { model: 'm', includeUsage: true, legacyFunctions: false };

/** What an upstream of `family` sends before its stream is cut (no end event), one read per event. */
function cutStream(family: SpecFamily, pieces: readonly string[]): string[] {
  const encoder = codecs[family].createStreamEncoder(context);
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'x', model: 'm', created: 0 },
    { type: 'text-start', choice: 0, index: 0 },
    ...pieces.map((text): StreamEvent => ({ type: 'text-delta', choice: 0, index: 0, text })),
  ];
  return events.map((event) => encoder.encode(event)).filter((text) => text.length > 0);
}

function upstream(chunks: readonly string[]): UpstreamResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: (async function* () {
      for (const chunk of chunks) yield await Promise.resolve(Buffer.from(chunk));
    })(),
    text: () => Promise.resolve(chunks.join('')),
    cancel: () => undefined,
  };
}

/** Streams `chunks` from a `family` upstream to a `surface` client; what the outcome says was delivered. */
async function delivered(
  family: SpecFamily,
  surface: SurfaceCodec,
  passThrough: boolean,
  chunks = cutStream(family, words),
): Promise<DeliveredText> {
  const signal = new AbortController().signal;
  const timers = new CallTimers({ connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 }, signal);
  const sink: ResponseSink = {
    headers: {},
    started: false,
    sendJson: () => undefined,
    startStream: () => undefined,
    write: () => undefined,
    end: () => undefined,
  };
  const control: StreamControl = { sink, signal, timers, begin: () => undefined };
  const stream = {
    decoder: codecs[family].createStreamDecoder(decodeContext),
    context,
    scrubber: createUpstreamErrorScrubber([], []),
  };
  const response = upstream(chunks);
  try {
    const outcome = passThrough
      ? await streamPassThrough({ ...stream, surface: codecs[family] }, response, control)
      : await streamTranslated({ ...stream, surface }, response, control);
    assert.equal(outcome.completed, false);
    return outcome.delivered();
  } finally {
    timers.stop();
  }
}

test('a cut stream is counted from the text the client received, on every surface', async () => {
  const expected = countTextTokens(words.join(''));
  for (const surface of [...specFamilies.map((family) => codecs[family]), responsesSurface]) {
    const text = await delivered('alpha', surface, false);
    assert.equal(deliveredOutputTokens(text), expected, surface.id);
  }
  for (const family of specFamilies) {
    const text = await delivered(family, codecs[family], true);
    assert.equal(deliveredOutputTokens(text), expected, `${family} pass-through`);
  }
});

test('past the kept part, the count is extrapolated by length', () => {
  const counted = deliveredOutputTokens({ text: words.join(''), scale: 1 });
  assert.equal(deliveredOutputTokens({ text: words.join(''), scale: 3 }), counted * 3);
});

test('garbage or a message cut in half costs nothing extra and throws nothing', async () => {
  const written = cutStream('alpha', words);
  const half = [...written.slice(0, -1), written.at(-1)!.slice(0, 20)];
  for (const passThrough of [true, false]) {
    const result = deliveredOutputTokens(await delivered('alpha', codecs.alpha, passThrough, half));
    assert.ok(result > 0 && result <= countTextTokens(words.join('')));
  }
  const garbage = await delivered('gamma', codecs.gamma, true, ['data: {nope\n\n']);
  assert.equal(deliveredOutputTokens(garbage), 0);
});
