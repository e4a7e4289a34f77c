import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext } from '../codec.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { BetaStreamEncoder } from './encode-stream.ts';
import { decodeChunks, decodeContext, fixture, fixtureText, sseFromChunks } from './test-kit.ts';

const context: ResponseContext = { model: 'b-1-20250101', includeUsage: true, legacyFunctions: false };

test('a thinking block reads back and is written as the family wrote it', () => {
  const body = fixture('thinking.json') as { content: unknown };
  const encoded = encodeResponse(decodeResponse(body, decodeContext), context);
  assert.deepEqual(encoded.content, body.content);
});

test('a streamed thinking block is re-encoded event for event: thinking_delta, signature_delta, stop', () => {
  const encoder = new BetaStreamEncoder(context);
  const sse = decodeChunks([sseFromChunks('thinking.chunks.txt')])
    .map((event) => encoder.encode(event))
    .join('');
  const written = sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
  const original = fixtureText('thinking.chunks.txt')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line.slice(line.indexOf('\t') + 1)) as unknown);
  // The thinking block's start, deltas and stop, exactly (events 1–4 of the fixture).
  assert.deepEqual(written.slice(1, 5), original.slice(1, 5));
});

test('a thought without a signature (from another family) is written with an empty one', () => {
  const response = decodeResponse(fixture('thinking.json'), decodeContext);
  const [thought] = response.choices[0]?.content ?? [];
  assert.ok(thought?.type === 'reasoning');
  delete thought.signature;
  const encoded = encodeResponse(response, context) as { content: unknown[] };
  assert.deepEqual(encoded.content[0], { type: 'thinking', thinking: '2+2 is 4.', signature: '' });
  const encoder = new BetaStreamEncoder(context);
  const events = [
    { type: 'reasoning-start', choice: 0, index: 0 },
    { type: 'reasoning-end', choice: 0, index: 0 },
  ] as const;
  const sse = events.map((event) => encoder.encode(event)).join('');
  assert.ok(!sse.includes('signature_delta'));
  assert.match(sse, /content_block_stop/);
});
