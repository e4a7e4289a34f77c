import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest, Message } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { estimatePromptTokens } from './prompt-tokens.ts';

function request(messages: Message[], system = ''): ChatRequest {
  return {
    model: 'm',
    system: system === '' ? [] : [{ type: 'text', text: system }],
    messages,
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
  };
}

test('texts through the tokenizer, 3 per message and 3 to prime, a fixed cost per image', async () => {
  const text = 'How warm is it in Lisbon today?';
  const plain = await estimatePromptTokens(
    request([{ role: 'user', content: [{ type: 'text', text }] }]),
    100,
  );
  assert.deepEqual(plain, { inputTokens: countTextTokens(text) + 3 + 3, imageTokens: 0 });
  const withSystem = await estimatePromptTokens(
    request([{ role: 'user', content: [{ type: 'text', text }] }], 'Be brief.'),
    100,
  );
  assert.equal(withSystem.inputTokens, plain.inputTokens + countTextTokens('Be brief.') + 3);
  const image = {
    type: 'image' as const,
    source: { kind: 'base64' as const, mediaType: 'image/png', data: 'AA==' },
  };
  const withImages = await estimatePromptTokens(
    request([
      { role: 'user', content: [{ type: 'text', text }, image] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 't', name: 'f', content: [image], isError: false }],
      },
    ]),
    100,
  );
  // Two messages now: one more framing.
  assert.deepEqual(withImages, { inputTokens: plain.inputTokens + 3 + 200, imageTokens: 200 });
});
