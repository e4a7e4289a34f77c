import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatResponse } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';

const context: ResponseContext = { model: 'client-model', includeUsage: false, legacyFunctions: false };

test('text, calls, finish reasons and usage in the family shape; modelVersion is the client-visible model', () => {
  const response: ChatResponse = {
    id: 'chatcmpl-123',
    model: 'upstream-model',
    created: 1,
    choices: [
      {
        index: 0,
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_1', name: 'get_w', arguments: '{"city":"Paris"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      },
      {
        index: 1,
        content: [{ type: 'text', text: 'cut' }],
        finishReason: { unified: 'length', raw: 'max_tokens' },
      },
      { index: 2, content: [], finishReason: { unified: 'content-filter', raw: 'RECITATION' } },
      { index: 3, content: [{ type: 'text', text: 'x' }], finishReason: { unified: 'content-filter' } },
    ],
    usage: {
      inputTokens: 1200,
      outputTokens: 225,
      cacheReadTokens: 1024,
      cacheWriteTokens: 0,
      reasoningTokens: 185,
    },
  };
  assert.deepEqual(gammaCodec.encodeResponse(response, context), {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { name: 'get_w', args: { city: 'Paris' }, id: 'call_1' } },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
      { content: { role: 'model', parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      { content: { role: 'model', parts: [] }, finishReason: 'RECITATION', index: 2 },
      { content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'SAFETY', index: 3 },
    ],
    usageMetadata: {
      promptTokenCount: 1200,
      candidatesTokenCount: 40,
      totalTokenCount: 1425,
      cachedContentTokenCount: 1024,
      thoughtsTokenCount: 185,
    },
    modelVersion: 'client-model',
    responseId: 'chatcmpl-123',
  });
});

test('usage without cache or reasoning omits those counts', () => {
  const body = gammaCodec.encodeResponse(
    {
      id: 'r',
      model: 'm',
      created: 1,
      choices: [
        {
          index: 0,
          content: [{ type: 'text', text: 'hi' }],
          finishReason: { unified: 'stop', raw: 'end_turn' },
        },
      ],
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 5 },
    },
    context,
  );
  assert.deepEqual(body.usageMetadata, {
    promptTokenCount: 10,
    candidatesTokenCount: 2,
    totalTokenCount: 12,
  });
  assert.equal((body.candidates as Array<Record<string, unknown>>)[0]?.finishReason, 'STOP');
});

test('upstream tool arguments that are not a JSON object are an upstream error, not a guess', () => {
  assert.throws(
    () =>
      gammaCodec.encodeResponse(
        {
          id: 'r',
          model: 'm',
          created: 1,
          choices: [
            {
              index: 0,
              content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '[1,2]' }],
              finishReason: { unified: 'tool-calls' },
            },
          ],
          usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
        context,
      ),
    (error: unknown) => error instanceof GatewayError && error.kind === 'upstream',
  );
});
