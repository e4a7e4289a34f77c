import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamRequest } from '../../codecs/codec.ts';
import { toVertexRequest } from './vertex-request.ts';

const placement = { project: 'p', location: 'us-central1' };

function countRequest(body: unknown): UpstreamRequest {
  return {
    path: '/v1/models/gemini-2.5-flash:countTokens',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    warnings: [],
    call: { model: 'gemini-2.5-flash', stream: false, operation: 'count-tokens' },
  };
}

test('countTokens: the full request form in snake_case is flattened with its fields, in their spelling', () => {
  const sent = toVertexRequest(
    countRequest({
      generate_content_request: {
        model: 'models/x',
        contents: [{ parts: [{ text: 'count me' }] }],
        system_instruction: { parts: [{ text: 'Be brief.' }] },
        generation_config: { max_output_tokens: 5 },
      },
    }),
    placement,
    'token',
  );
  assert.deepEqual(JSON.parse(sent.body), {
    contents: [{ role: 'user', parts: [{ text: 'count me' }] }],
    system_instruction: { parts: [{ text: 'Be brief.' }] },
    generation_config: { max_output_tokens: 5 },
  });
});
