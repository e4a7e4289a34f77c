import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../ir/index.ts';
import { callId } from './decode-response.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { fixedNow, loadJson, testContext } from './test-kit.ts';

const created = Math.floor(fixedNow / 1000);

test('text answer: thought parts a thought, adjacent text joined, thoughts and cache in usage', () => {
  assert.deepEqual(gammaCodec.decodeResponse(loadJson('text-thoughts.json'), testContext()), {
    id: 'bH6LaZr1',
    model: 'm-001',
    created,
    choices: [
      {
        index: 0,
        content: [
          {
            type: 'reasoning',
            text: "**Counting the letters**\nThe user wants the number of r's in strawberry.",
          },
          { type: 'text', text: 'There are three r\'s in "strawberry".' },
        ],
        finishReason: { unified: 'stop', raw: 'STOP' },
      },
    ],
    usage: {
      inputTokens: 1200,
      outputTokens: 225,
      cacheReadTokens: 1024,
      cacheWriteTokens: 0,
      reasoningTokens: 185,
    },
  });
});

test('function call: id synthesized, args stringified, STOP with a call is tool-calls', () => {
  assert.match(callId('fC9qb3Lk', 0, 0), /^call_[0-9a-f]{16}$/);
  assert.notEqual(callId('fC9qb3Lk', 0, 0), callId('fC9qb3Lk', 0, 1));
  assert.notEqual(callId('fC9qb3Lk', 0, 0), callId('other', 0, 0));
  assert.deepEqual(gammaCodec.decodeResponse(loadJson('function-call.json'), testContext()), {
    id: 'fC9qb3Lk',
    model: 'm-001',
    created,
    choices: [
      {
        index: 0,
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: callId('fC9qb3Lk', 0, 0), name: 'get_w', arguments: '{"city":"Paris"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'STOP' },
      },
    ],
    usage: { inputTokens: 60, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test('blocked prompt: HTTP 200 without candidates is one empty content-filter choice', () => {
  const response = gammaCodec.decodeResponse(loadJson('blocked-prompt.json'), testContext());
  assert.deepEqual(response.choices, [
    { index: 0, content: [], finishReason: { unified: 'content-filter', raw: 'SAFETY' } },
  ]);
  assert.deepEqual(response.usage, {
    inputTokens: 8,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
});

test('several candidates by index; finish reasons mapped; upstream id kept on calls; ids generated when absent', () => {
  const response = gammaCodec.decodeResponse(
    {
      candidates: [
        { index: 1, content: { role: 'model', parts: [{ text: 'b' }] }, finishReason: 'MAX_TOKENS' },
        {
          index: 0,
          content: { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'f' } }] },
          finishReason: 'MALFORMED_FUNCTION_CALL',
        },
        { index: 2, content: { role: 'model', parts: [] }, finishReason: 'RECITATION' },
        { index: 3, content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'SOMETHING_NEW' },
      ],
    },
    testContext(),
  );
  assert.equal(response.id, 'gen_1');
  assert.equal(response.created, created);
  assert.deepEqual(
    response.choices.map((choice) => [choice.index, choice.finishReason]),
    [
      [0, { unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' }],
      [1, { unified: 'length', raw: 'MAX_TOKENS' }],
      [2, { unified: 'content-filter', raw: 'RECITATION' }],
      [3, { unified: 'other', raw: 'SOMETHING_NEW' }],
    ],
  );
  assert.deepEqual(response.choices[0]?.content, [
    { type: 'tool-call', id: 'fc-1', name: 'f', arguments: '{}' },
  ]);
  assert.deepEqual(response.usage, {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
});

test('C-cloud createTime sets created', () => {
  const response = gammaCodec.decodeResponse(
    { candidates: [], createTime: '2025-01-02T03:04:05.678Z' },
    testContext(),
  );
  assert.equal(response.created, Math.floor(Date.parse('2025-01-02T03:04:05.678Z') / 1000));
});

test('a body that is not an object is an upstream error', () => {
  assert.throws(
    () => gammaCodec.decodeResponse([1, 2], testContext()),
    (error: unknown) => error instanceof GatewayError && error.kind === 'upstream',
  );
});
