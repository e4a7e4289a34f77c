/**
 * Thinking across families, pure functions only: an upstream's thought (B `thinking` blocks, C
 * `thought: true` parts), JSON and streamed, reaches every client in its family's form — B
 * `thinking` blocks with the signature (`signature_delta` in streams), C `thought: true` parts
 * with `thoughtSignature`, the Responses API's `reasoning` item — and A chat completions, which
 * have no place for a thought, show none; the stream read back folds to the JSON answer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { ResponseContext } from '../../src/codecs/codec.ts';
import { checkStreamEvents } from '../../src/ir/check-stream-events.ts';
import { foldStream } from '../../src/ir/fold-stream.ts';
import type { AnswerPart, ChatResponse, JsonObject, StreamEvent } from '../../src/ir/index.ts';
import { SseParser } from '../../src/sse/parse-sse.ts';
import { responsesSurface } from '../../src/surfaces/responses/index.ts';
import { createStreamDecoder as readResponsesStream } from '../../src/surfaces/responses/test-kit.ts';
import { hasPassThrough, type SurfaceCodec } from '../../src/surfaces/surface.ts';
import { codecs } from '../kit/spec-families.ts';

const context = { generateId: (prefix: string) => `${prefix}1`, now: () => 1_700_000_000_000 };
const responseContext: ResponseContext = {
  model: 'client-model',
  includeUsage: true,
  legacyFunctions: false,
};

function fixture(family: 'beta' | 'gamma', name: string): string {
  return readFileSync(new URL(`../../src/codecs/${family}/__fixtures__/${name}`, import.meta.url), 'utf8');
}

/** The upstream answers with a thought: B's and C's own fixtures, JSON and SSE. */
const upstreams = {
  beta: {
    json: JSON.parse(fixture('beta', 'thinking.json')) as unknown,
    sse: fixture('beta', 'thinking.chunks.txt')
      .split('\n')
      .filter((line) => line !== '')
      .map(
        (line) =>
          `event: ${line.slice(0, line.indexOf('\t'))}\ndata: ${line.slice(line.indexOf('\t') + 1)}\n\n`,
      )
      .join(''),
    thought: { type: 'reasoning', text: '2+2 is 4.', signature: 'EqQBCgIYAhIM' },
  },
  gamma: {
    json: JSON.parse(fixture('gamma', 'text-thoughts.json')) as unknown,
    sse: fixture('gamma', 'stream-thoughts.chunks.txt')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => `data: ${line}\n\n`)
      .join(''),
    // The answer's signature is on its last text part: it signs the turn, not the thought.
    thought: {
      type: 'reasoning',
      text: "**Counting the letters**\nThe user wants the number of r's in strawberry.",
    },
  },
} as const;

/** Reads a surface's stream back: a family's own decoder, the Responses surface's test reader. */
function decodeSse(surface: SurfaceCodec, text: string): StreamEvent[] {
  const parser = new SseParser();
  const decoder = hasPassThrough(surface)
    ? surface.createStreamDecoder(context)
    : readResponsesStream(context);
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  parser.push(text, (message) => decoder.push(message, emit));
  parser.end((message) => decoder.push(message, emit));
  decoder.end(emit);
  return events;
}

function thoughtsOf(response: ChatResponse): AnswerPart[] {
  return response.choices[0]?.content.filter((part) => part.type === 'reasoning') ?? [];
}

/** What each client family sees of a thought, read from its own JSON answer. */
const clientViews: Record<string, (body: JsonObject) => unknown> = {
  beta: (body) => (body.content as JsonObject[]).filter((block) => block.type === 'thinking'),
  gamma: (body) =>
    ((body.candidates as JsonObject[])[0]?.content as { parts: JsonObject[] }).parts.filter(
      (part) => part.thought === true,
    ),
  responses: (body) => (body.output as JsonObject[]).filter((item) => item.type === 'reasoning'),
  alpha: (body) => JSON.stringify(body).includes('reasoning_content'),
};

for (const [source, upstream] of Object.entries(upstreams)) {
  const wire = codecs[source as 'beta' | 'gamma'];
  describe(`a ${source} upstream's thought`, () => {
    test('decodes to a reasoning part, JSON and streamed alike', () => {
      const json = wire.decodeResponse(upstream.json, context);
      assert.deepEqual(thoughtsOf(json), [upstream.thought]);
      const events = decodeSse(wire, upstream.sse);
      assert.deepEqual(checkStreamEvents(events), []);
      assert.deepEqual(thoughtsOf(foldStream(events)), [upstream.thought]);
    });

    test('reaches each client family in its own form', () => {
      const response = wire.decodeResponse(upstream.json, context);
      const { text } = upstream.thought;
      const signature = 'signature' in upstream.thought ? upstream.thought.signature : undefined;
      const seen = (surface: SurfaceCodec): unknown =>
        clientViews[surface.id]?.(surface.encodeResponse(response, responseContext));
      assert.deepEqual(seen(codecs.beta), [{ type: 'thinking', thinking: text, signature: signature ?? '' }]);
      assert.deepEqual(seen(codecs.gamma), [
        signature === undefined
          ? { text, thought: true }
          : { text, thought: true, thoughtSignature: signature },
      ]);
      const [item] = seen(responsesSurface) as Array<{ id: string }>;
      assert.match(item?.id ?? '', /^rs_/);
      assert.deepEqual(
        { ...item, id: '' },
        {
          id: '',
          type: 'reasoning',
          status: 'completed',
          summary: [],
          content: [{ type: 'reasoning_text', text }],
        },
      );
      assert.equal(seen(codecs.alpha), false);
      const alpha = codecs.alpha.encodeResponse(response, responseContext) as {
        choices: Array<{ message: { content: string } }>;
      };
      assert.ok(!alpha.choices[0]?.message.content.includes(text), 'A shows no thought');
    });

    for (const client of [codecs.beta, codecs.gamma, responsesSurface]) {
      test(`streamed to a ${client.id} client, read back: the same thought`, () => {
        const encoder = client.createStreamEncoder(responseContext);
        const sse = decodeSse(wire, upstream.sse)
          .map((event) => encoder.encode(event))
          .join('');
        const events = decodeSse(client, sse);
        // The Responses surface's reader gives no signature (the API has no field for it).
        const expected =
          client === responsesSurface ? { type: 'reasoning', text: upstream.thought.text } : upstream.thought;
        assert.deepEqual(thoughtsOf(foldStream(events)), [expected]);
        if (client === codecs.beta && 'signature' in upstream.thought)
          assert.match(sse, /"type":"signature_delta"/);
      });
    }

    test('streamed to an A client: no thought in the chunks', () => {
      const encoder = codecs.alpha.createStreamEncoder(responseContext);
      const sse = decodeSse(wire, upstream.sse)
        .map((event) => encoder.encode(event))
        .join('');
      assert.ok(!sse.includes(upstream.thought.text.slice(0, 12)));
      assert.deepEqual(thoughtsOf(foldStream(decodeSse(codecs.alpha, sse))), []);
    });
  });
}
