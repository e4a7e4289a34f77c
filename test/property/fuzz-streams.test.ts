/**
 * Fuzzing the three stream decoders inside the real stream pipeline: any upstream body (valid
 * streams mutated, truncated, interleaved with garbage, split at any byte) gives the client a
 * well-ended stream in its surface's shape: the normal end, or the family's error event. Never an
 * exception, never silence.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { ResponseContext } from '../../src/codecs/codec.ts';
import { decodeContext } from '../../src/gateway/decode-context.ts';
import type { ResponseSink } from '../../src/gateway/response-sink.ts';
import type { StreamOutcome } from '../../src/gateway/delivery.ts';
import { streamPassThrough } from '../../src/gateway/pass-through-stream.ts';
import { streamTranslated } from '../../src/gateway/stream-pipeline.ts';
import { CallTimers } from '../../src/upstream/timers.ts';
import type { UpstreamResponse } from '../../src/upstream/transport.ts';
import { fuzzParameters, mutated, simulatedStream, streamCorpus } from './test-kit.ts';
import { createUpstreamErrorScrubber } from '../../src/upstream/upstream-error-text.ts';
import { codecs, specFamilies, type SpecFamily } from '../kit/spec-families.ts';

interface Piece {
  event: string | undefined;
  data: string;
}

function piecesOf(sse: string): Piece[] {
  return sse
    .split(/\n\n+/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      return { event, data: data.join('\n') };
    });
}

function textOf(pieces: readonly Piece[]): string {
  return pieces
    .map((piece) => `${piece.event === undefined ? '' : `event: ${piece.event}\n`}data: ${piece.data}\n\n`)
    .join('');
}

const seeds: Partial<Record<SpecFamily, Piece[][]>> = {};
before(async () => {
  for (const family of specFamilies) {
    seeds[family] = [
      piecesOf(await simulatedStream(family, false)),
      piecesOf(await simulatedStream(family, true)),
    ];
  }
});

/** One SSE message changed: its JSON mutated, its event renamed, or replaced by garbage. */
const changePiece = (piece: Piece): fc.Arbitrary<Piece> => {
  let json: unknown;
  try {
    json = JSON.parse(piece.data);
  } catch {
    json = undefined;
  }
  const options: fc.Arbitrary<Piece>[] = [
    fc.string({ unit: 'binary', maxLength: 40 }).map((data) => ({ event: piece.event, data })),
    fc
      .constantFrom('error', 'ping', 'message_stop', 'message_start', '', 'x')
      .map((event) => ({ ...piece, event })),
    fc
      .constantFrom('[DONE]', '{}', 'null', '[]', '{"error":{"message":"boom","type":"server_error"}}')
      .map((data) => ({ event: piece.event, data })),
  ];
  if (typeof json === 'object' && json !== null) {
    options.push(
      mutated(json as Record<string, unknown>, 1, 3).map((value) => ({
        event: piece.event,
        data: JSON.stringify(value),
      })),
    );
  }
  return fc.oneof(...options);
};

/** An upstream body: a valid stream, changed here and there, cut short or not, split into chunks. */
function upstreamBody(family: SpecFamily): fc.Arbitrary<string[]> {
  return fc
    .record({
      seed: fc.nat(),
      edits: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.nat()), { maxLength: 4 }),
    })
    .chain(({ seed, edits }) => {
      const choices = seeds[family] ?? [];
      const base = [...(choices[seed % choices.length] ?? [])];
      const changes = edits.map(([at, kind]) => ({ at: at % Math.max(1, base.length), kind }));
      return fc
        .tuple(
          ...changes.map(({ at }) => changePiece(base[at] ?? { event: undefined, data: '{}' })),
          fc.option(fc.nat(), { nil: undefined }),
          fc.array(fc.nat(), { maxLength: 6 }),
        )
        .map((values) => {
          const pieces = [...base];
          changes.forEach(({ at, kind }, index) => {
            const replacement = values[index] as Piece;
            if (kind === 0) pieces[at] = replacement;
            else if (kind === 1) pieces.splice(at, 1);
            else if (kind === 2) pieces.splice(at, 0, replacement);
            else pieces.splice(at, 0, ...pieces.splice(at, 1), ...(pieces[at] === undefined ? [] : []));
          });
          let text = textOf(pieces);
          const cut = values[changes.length] as number | undefined;
          if (cut !== undefined && text.length > 0) text = text.slice(0, cut % text.length);
          const splits = (values[changes.length + 1] as number[])
            .map((point) => point % Math.max(1, text.length))
            .sort((a, b) => a - b);
          const chunks: string[] = [];
          let from = 0;
          for (const point of splits) {
            chunks.push(text.slice(from, point));
            from = point;
          }
          chunks.push(text.slice(from));
          return chunks.filter((chunk) => chunk.length > 0);
        });
    });
}

function fakeResponse(chunks: readonly string[]): UpstreamResponse {
  const bytes = chunks.map((chunk) => Buffer.from(chunk, 'utf8'));
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: (async function* () {
      for (const chunk of bytes) yield await Promise.resolve(chunk);
    })(),
    text: () => Promise.resolve(chunks.join('')),
    cancel: () => undefined,
  };
}

function fakeSink(): ResponseSink & { text: string } {
  const sink = {
    headers: {},
    started: false,
    text: '',
    sendJson: () => undefined,
    startStream: () => {
      sink.started = true;
    },
    write: (text: string) => {
      sink.text += text;
      return undefined;
    },
    end: () => undefined,
  };
  return sink;
}

interface Message {
  event: string | undefined;
  data: string;
}

/**
 * The client-visible stream ends the surface's normal way or with its error event, nothing follows
 * the end, every data line is JSON; and an outcome with an error ended with the error event.
 */
function assertWellEnded(
  surface: SpecFamily,
  text: string,
  outcome: StreamOutcome,
  passThrough: boolean,
  label: string,
): void {
  assert.ok(outcome.started, `${label}: the client got nothing`);
  assert.ok(!(outcome.completed && outcome.error !== undefined), `${label}: completed and failed`);
  const messages: Message[] = piecesOf(text);
  assert.ok(messages.length > 0, `${label}: empty stream`);
  for (const message of messages) {
    if (message.data === '[DONE]') continue;
    // Pass-through forwards the upstream's own keep-alives verbatim; clients skip them unread.
    if (passThrough && message.event === 'ping') continue;
    assert.doesNotThrow(() => JSON.parse(message.data), `${label}: data is not JSON: ${message.data}`);
  }
  const last = messages.at(-1) as Message;
  const json = (message: Message): Record<string, unknown> | undefined =>
    message.data === '[DONE]' ? undefined : (JSON.parse(message.data) as Record<string, unknown> | undefined);
  const isError = (message: Message): boolean =>
    surface === 'beta' ? message.event === 'error' : typeof json(message)?.error === 'object';
  const isEnd = (message: Message): boolean =>
    surface === 'beta'
      ? message.event === 'message_stop' && (passThrough || json(message)?.type === 'message_stop')
      : surface === 'alpha'
        ? message.data === '[DONE]'
        : !isError(message);
  assert.ok(
    isError(last) || isEnd(last),
    `${label}: the last message is neither the end nor an error: ${last.data}`,
  );
  if (outcome.error !== undefined)
    assert.ok(isError(last), `${label}: a failed stream ends with the error event`);
  // C's encoder refuses upstream tool-call arguments that are not JSON with its error object, even
  // when the upstream stream itself completed: the client sees an error, never a bad call.
  if (outcome.completed && surface !== 'gamma')
    assert.ok(isEnd(last), `${label}: a completed stream ends normally`);
  // C has no end marker (the connection closes): at most one error object, last.
  const terminals = messages.filter((message) => isError(message) || (surface !== 'gamma' && isEnd(message)));
  if (surface === 'gamma')
    assert.ok(
      terminals.length <= 1 && (terminals.length === 0 || isError(last)),
      `${label}: one error, last`,
    );
  else if (!passThrough || surface !== 'beta') assert.equal(terminals.length, 1, `${label}: one end, last`);
}

async function run(
  family: SpecFamily,
  surface: SpecFamily,
  chunks: readonly string[],
  passThrough: boolean,
): Promise<void> {
  const context: ResponseContext = { model: 'asked-model', includeUsage: true, legacyFunctions: false };
  const sink = fakeSink();
  const client = new AbortController();
  const timers = new CallTimers({ connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 }, client.signal);
  const control = {
    sink,
    signal: client.signal,
    timers,
    begin: () => {
      sink.startStream();
    },
  };
  const stream = {
    surface: codecs[surface],
    decoder: codecs[family].createStreamDecoder(decodeContext),
    context,
    scrubber: createUpstreamErrorScrubber(['up-secret-key'], []),
  };
  const label = `${family} upstream → ${surface} client${passThrough ? ' (pass-through)' : ''}`;
  try {
    const outcome = passThrough
      ? await streamPassThrough(stream, fakeResponse(chunks), control)
      : await streamTranslated(stream, fakeResponse(chunks), control);
    assertWellEnded(surface, sink.text, outcome, passThrough, label);
    assert.ok(!sink.text.includes('up-secret-key'), `${label}: the upstream key leaked`);
  } finally {
    timers.stop();
  }
}

for (const family of specFamilies) {
  describe(`${family} stream decoder`, () => {
    for (const surface of specFamilies) {
      const modes = surface === family ? [false, true] : [false];
      for (const passThrough of modes) {
        test(`any upstream body → a well-ended ${surface} stream${passThrough ? ' (pass-through)' : ''}`, async () => {
          await fc.assert(
            fc.asyncProperty(upstreamBody(family), (chunks) => run(family, surface, chunks, passThrough)),
            fuzzParameters(150),
          );
        });
      }
    }
    test('bytes that are not SSE at all', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { maxLength: 5 }),
          async (chunks) => {
            for (const surface of specFamilies) await run(family, surface, chunks, false);
          },
        ),
        fuzzParameters(100),
      );
    });
  });
}

describe('stream seed corpus (replayed every run)', () => {
  for (const { name, value } of streamCorpus()) {
    test(name, async () => {
      for (const surface of specFamilies) {
        await run(value.family, surface, value.chunks, false);
        if (surface === value.family) await run(value.family, surface, value.chunks, true);
      }
    });
  }
});
