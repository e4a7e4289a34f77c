/**
 * Property: for random tool-call streams from each family's upstream — text and calls mixed in
 * one chunk, parallel calls (interleaved by `index` on A), empty `tool_calls: []`, `ping`s,
 * argument fragments cut at any character — delivered to each surface through the gateway's own
 * stream pipeline:
 * 1. any re-splitting of the upstream bytes (inside UTF-8 sequences too) gives byte-identical
 *    client output;
 * 2. the client, reading the stream the way its SDK does, gets the same text and the same calls
 *    in the same order, and each call's concatenated argument fragments parse to the same JSON.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { DecodeContext } from '../../src/codecs/codec.ts';
import { streamPassThrough } from '../../src/gateway/pass-through-stream.ts';
import { streamTranslated } from '../../src/gateway/stream-pipeline.ts';
import type { ResponseSink } from '../../src/gateway/response-sink.ts';
import { CallTimers } from '../../src/upstream/timers.ts';
import type { UpstreamResponse } from '../../src/upstream/transport.ts';
import { clientSaw, parseEvents } from '../golden/test-kit.ts';
import type { Json, JsonObject } from '../golden/scenarios.ts';
import { createUpstreamErrorScrubber } from '../../src/upstream/upstream-error-text.ts';
import { codecs, specFamilies, type SpecFamily } from '../kit/spec-families.ts';

interface Call {
  name: string;
  args: JsonObject;
  /** Where the argument JSON is cut into fragments (fractions of its length). */
  cuts: number[];
}

interface Shape {
  text: string | undefined;
  textCuts: number[];
  calls: Call[];
  /** A: the last text piece and the first call's start share a chunk. */
  mixFirst: boolean;
  /** A: text chunks carry `tool_calls: []`. */
  emptyArrays: boolean;
  /** A: fragments of parallel calls alternate by `index`; C: each call in its own chunk. */
  interleave: boolean;
}

const names = ['get_weather', 'lookup', 'f_1', 'x-y'];

const shape: fc.Arbitrary<Shape> = fc.record({
  text: fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }), { nil: undefined }),
  textCuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  calls: fc.array(
    fc.record({
      name: fc.constantFrom(...names),
      args: fc.dictionary(
        fc.string({ unit: 'grapheme', maxLength: 6 }),
        fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
        { maxKeys: 4 },
      ),
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
    }),
    { maxLength: 3 },
  ),
  mixFirst: fc.boolean(),
  emptyArrays: fc.boolean(),
  interleave: fc.boolean(),
});

/** `text` cut at the given fractions (any UTF-16 index: surrogate pairs may be split too). */
function cutText(text: string, fractions: readonly number[]): string[] {
  const points = [...new Set(fractions.map((fraction) => Math.floor(fraction * text.length)))]
    .filter((point) => point > 0 && point < text.length)
    .sort((left, right) => left - right);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
const named = (event: string, value: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;

function alphaUpstream(answer: Shape): string {
  const chunk = (delta: unknown, finish: string | null = null): string =>
    data({
      id: 'chatcmpl-p',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  let out = chunk({ role: 'assistant', content: '' });
  const texts = answer.text === undefined ? [] : cutText(answer.text, answer.textCuts);
  const starts = answer.calls.map((call, index) => ({
    index,
    id: `call_p${index}`,
    type: 'function',
    function: { name: call.name, arguments: '' },
  }));
  const empty = answer.emptyArrays ? { tool_calls: [] } : {};
  texts.forEach((text, position) => {
    const first = starts[0];
    if (position === texts.length - 1 && answer.mixFirst && first !== undefined)
      out += chunk({ content: text, tool_calls: [first] });
    else out += chunk({ content: text, ...empty });
  });
  const fragments = answer.calls.map((call) => cutText(JSON.stringify(call.args), call.cuts));
  const started = new Set<number>(texts.length > 0 && answer.mixFirst && starts.length > 0 ? [0] : []);
  const emit = (index: number, fragment: string): void => {
    if (!started.has(index)) {
      started.add(index);
      out += chunk({ tool_calls: [starts[index]] });
    }
    out += chunk({ tool_calls: [{ index, function: { arguments: fragment } }] });
  };
  if (answer.interleave) {
    const longest = Math.max(0, ...fragments.map((list) => list.length));
    for (let round = 0; round < longest; round++)
      fragments.forEach((list, index) => {
        const fragment = list[round];
        if (fragment !== undefined) emit(index, fragment);
      });
  } else fragments.forEach((list, index) => list.forEach((fragment) => emit(index, fragment)));
  out += chunk({}, answer.calls.length > 0 ? 'tool_calls' : 'stop');
  out += data({
    id: 'chatcmpl-p',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  return `${out}data: [DONE]\n\n`;
}

function betaUpstream(answer: Shape): string {
  const usage = {
    input_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 1,
  };
  let out = named('message_start', {
    type: 'message_start',
    message: { id: 'msg_p', type: 'message', role: 'assistant', model: 'm', content: [], usage },
  });
  let index = 0;
  if (answer.text !== undefined) {
    out += named('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
    for (const text of cutText(answer.text, answer.textCuts)) {
      out += named('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text },
      });
      out += named('ping', { type: 'ping' });
    }
    out += named('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  answer.calls.forEach((call, position) => {
    out += named('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_p${position}`, name: call.name, input: {} },
    });
    for (const partial_json of ['', ...cutText(JSON.stringify(call.args), call.cuts)]) {
      out += named('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json },
      });
    }
    out += named('content_block_stop', { type: 'content_block_stop', index });
    index++;
  });
  out += named('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: answer.calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  return out + named('message_stop', { type: 'message_stop' });
}

function gammaUpstream(answer: Shape): string {
  const chunk = (parts: unknown[], finish?: string): string =>
    data({
      candidates: [
        {
          content: { role: 'model', parts },
          ...(finish === undefined ? {} : { finishReason: finish }),
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: 'm',
      responseId: 'r-p',
    });
  let out = '';
  if (answer.text !== undefined)
    for (const text of cutText(answer.text, answer.textCuts)) out += chunk([{ text }]);
  const calls = answer.calls.map((call) => ({ functionCall: { name: call.name, args: call.args } }));
  if (answer.interleave) {
    for (const call of calls) out += chunk([call]);
    return out + chunk([{ text: '' }], 'STOP');
  }
  return out + chunk(calls.length > 0 ? calls : [{ text: '' }], 'STOP');
}

const upstream: Record<SpecFamily, (answer: Shape) => string> = {
  alpha: alphaUpstream,
  beta: betaUpstream,
  gamma: gammaUpstream,
};

const fixedContext: DecodeContext = { generateId: (prefix) => `${prefix}p`, now: () => 1_700_000_000_000 };

/** The gateway's stream pipeline over `pieces` of upstream bytes; returns what the client got. */
async function deliver(surface: SpecFamily, family: SpecFamily, pieces: Uint8Array[]): Promise<string> {
  let output = '';
  const sink: ResponseSink = {
    headers: {},
    started: true,
    sendJson: () => undefined,
    startStream: () => undefined,
    write: (text) => {
      output += text;
      return undefined;
    },
    end: () => undefined,
  };
  const response: UpstreamResponse = {
    status: 200,
    headers: {},
    body: (async function* () {
      for (const piece of pieces) {
        await Promise.resolve(); // chunks arrive one by one, as from a socket
        yield piece;
      }
    })(),
    text: () => Promise.resolve(''),
    cancel: () => undefined,
  };
  const stream = {
    surface: codecs[surface],
    decoder: codecs[family].createStreamDecoder(fixedContext),
    context: { model: 'client-model', includeUsage: true, legacyFunctions: false },
    scrubber: createUpstreamErrorScrubber([], []),
  };
  const signal = new AbortController().signal;
  const timers = new CallTimers({ connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 }, signal);
  const control = { sink, signal, timers, begin: () => undefined };
  const outcome =
    surface === family
      ? await streamPassThrough(stream, response, control)
      : await streamTranslated(stream, response, control);
  timers.stop();
  assert.equal(outcome.error?.message, undefined);
  assert.ok(outcome.completed);
  return output;
}

function split(bytes: Uint8Array, fractions: readonly number[]): Uint8Array[] {
  const points = [...new Set(fractions.map((fraction) => Math.floor(fraction * bytes.length)))]
    .filter((point) => point > 0 && point < bytes.length)
    .sort((left, right) => left - right);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const encoder = new TextEncoder();

describe('random tool-call streams survive any byte split, in every surface × family pair', () => {
  for (const family of specFamilies) {
    for (const surface of specFamilies) {
      test(`${family} upstream → ${surface} client`, async () => {
        await fc.assert(
          fc.asyncProperty(
            shape,
            fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
            async (answer, fractions) => {
              const bytes = encoder.encode(upstream[family](answer));
              const whole = await deliver(surface, family, [bytes]);
              const resplit = await deliver(surface, family, split(bytes, fractions));
              const byteByByte = await deliver(
                surface,
                family,
                split(
                  bytes,
                  [...bytes.keys()].map((at) => at / bytes.length),
                ),
              );
              assert.equal(resplit, whole);
              assert.equal(byteByByte, whole);
              const seen = clientSaw(surface, { status: 200, headers: {}, events: parseEvents(whole) });
              assert.equal(seen.text, answer.text ?? '');
              assert.deepEqual(
                seen.calls.map((call) => call.name),
                answer.calls.map((call) => call.name),
              );
              seen.calls.forEach((call, index) => {
                // Same JSON, compared as canonical text (-0 and 0 print alike, as on the wire).
                assert.equal(JSON.stringify(call.args), JSON.stringify(answer.calls[index]?.args));
              });
            },
          ),
          { numRuns: 40 },
        );
      });
    }
  }
});
