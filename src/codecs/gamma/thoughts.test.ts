import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldStream } from '../../ir/fold-stream.ts';
import type { StreamEvent } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeSse, loadChunks, loadJson, sseBytes, testContext } from './test-kit.ts';

const context: ResponseContext = { model: 'm-001', includeUsage: true, legacyFunctions: false };

test('thought parts stream as one reasoning block before the text, folding to the JSON answer', () => {
  const events = decodeSse([sseBytes(loadChunks('stream-thoughts.chunks.txt'))]);
  assert.deepEqual(
    events.filter((event) => event.type.startsWith('reasoning')),
    [
      { type: 'reasoning-start', choice: 0, index: 0 },
      { type: 'reasoning-delta', choice: 0, index: 0, text: '**Counting the letters**\n' },
      {
        type: 'reasoning-delta',
        choice: 0,
        index: 0,
        text: "The user wants the number of r's in strawberry.",
      },
      { type: 'reasoning-end', choice: 0, index: 0 },
    ],
  );
  const direct = decodeResponse(loadJson('text-thoughts.json'), testContext());
  assert.deepEqual(foldStream(events).choices, direct.choices);
});

test('a signature on a thought part, or on the part right after it, signs the thought', () => {
  for (const parts of [
    [{ text: 'hmm', thought: true, thoughtSignature: 'c2ln' }, { text: 'Answer.' }],
    [
      { text: 'hmm', thought: true },
      { text: 'Answer.', thoughtSignature: 'c2ln' },
    ],
  ]) {
    const body = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }],
      responseId: 'r',
    };
    assert.deepEqual(decodeResponse(body, testContext()).choices[0]?.content, [
      { type: 'reasoning', text: 'hmm', signature: 'c2ln' },
      { type: 'text', text: 'Answer.' },
    ]);
    const chunks = parts.map((part) =>
      JSON.stringify({ ...body, candidates: [{ content: { role: 'model', parts: [part] } }] }),
    );
    chunks.push(
      JSON.stringify({
        ...body,
        candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP' }],
      }),
    );
    assert.deepEqual(foldStream(decodeSse([sseBytes(chunks)])).choices[0]?.content, [
      { type: 'reasoning', text: 'hmm', signature: 'c2ln' },
      { type: 'text', text: 'Answer.' },
    ]);
  }
});

test('a thought is written as thought parts and reads back with its signature, streamed and not', () => {
  const response = decodeResponse(loadJson('text-thoughts.json'), testContext());
  const [thought] = response.choices[0]?.content ?? [];
  assert.ok(thought?.type === 'reasoning');
  thought.signature = 'c2ln';
  const body = encodeResponse(response, context) as { candidates: Array<{ content: { parts: unknown[] } }> };
  assert.deepEqual(body.candidates[0]?.content.parts[0], {
    text: thought.text,
    thought: true,
    thoughtSignature: 'c2ln',
  });
  assert.deepEqual(decodeResponse(body, testContext()).choices, response.choices);

  const encoder = createStreamEncoder(context);
  const events: StreamEvent[] = [
    { type: 'message-start', id: 'r', model: 'm', created: 0 },
    { type: 'reasoning-start', choice: 0, index: 0 },
    { type: 'reasoning-delta', choice: 0, index: 0, text: thought.text },
    { type: 'reasoning-end', choice: 0, index: 0, signature: 'c2ln' },
    { type: 'text-start', choice: 0, index: 1 },
    { type: 'text-delta', choice: 0, index: 1, text: 'Answer.' },
    { type: 'text-end', choice: 0, index: 1 },
    { type: 'finish', choice: 0, finishReason: { unified: 'stop' } },
    { type: 'message-end', usage: response.usage },
  ];
  const sse = events.map((event) => encoder.encode(event)).join('');
  assert.deepEqual(foldStream(decodeSse([sse])).choices[0]?.content, [
    { type: 'reasoning', text: thought.text, signature: 'c2ln' },
    { type: 'text', text: 'Answer.' },
  ]);
});
