/**
 * Thinking as the official SDKs see it, through a gateway on the simulator: a request that enables
 * thinking gets the model's thought in its family's own form — B `thinking` blocks with a
 * signature (`signature_delta` when streamed), C `thought: true` parts, a Responses `reasoning`
 * item — from models of every family that show one, and the thinking tokens usage reports are the
 * tokens of that thought. A chat completions carry no thought: only `reasoning_tokens`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { countTextTokens } from '../../src/tokenizer/count-tokens.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
});

const prompt = 'How many r are in strawberry?';

describe('@anthropic-ai/sdk with thinking enabled', () => {
  const request = (model: string) => ({
    model,
    max_tokens: 4096,
    thinking: { type: 'enabled' as const, budget_tokens: 2048 },
    messages: [{ role: 'user' as const, content: prompt }],
  });

  for (const model of ['B-1', 'C-1']) {
    test(`${model}: a signed thinking block before the text, streamed the same`, async () => {
      const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
      const message = await client.messages.create(request(model));
      const [thinking, text] = message.content;
      assert.equal(thinking?.type, 'thinking');
      assert.equal(text?.type, 'text');
      assert.ok(thinking.thinking.length > 0);
      assert.ok(thinking.signature.length > 0, 'the thought is signed');
      const thinkingTokens = message.usage.output_tokens_details?.thinking_tokens;
      assert.equal(thinkingTokens, countTextTokens(thinking.thinking));
      assert.ok(message.usage.output_tokens > thinkingTokens);

      const stream = client.messages.stream(request(model));
      let signatureDeltas = 0;
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta' && event.delta.type === 'signature_delta') signatureDeltas++;
      });
      const streamed = await stream.finalMessage();
      assert.equal(signatureDeltas, 1);
      assert.deepEqual(streamed.content, message.content, 'deterministic, streamed or not');
    });
  }

  test('A-2: no thinking block (the A wire has none)', async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const message = await client.messages.create(request('A-2'));
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['text'],
    );
  });

  test('thinking disabled: no thinking block', async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const message = await client.messages.create({ ...request('B-1'), thinking: { type: 'disabled' } });
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['text'],
    );
  });
});

describe('@google/genai with thoughts included', () => {
  const config = { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } };

  for (const model of ['C-1', 'B-1']) {
    test(`${model}: thought parts first, their tokens the thoughtsTokenCount, streamed the same`, async () => {
      const client = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
      const answer = await client.models.generateContent({ model, contents: prompt, config });
      const parts = answer.candidates?.[0]?.content?.parts ?? [];
      const thoughts = parts.filter((part) => part.thought === true);
      assert.ok(thoughts.length > 0);
      assert.equal(parts[0]?.thought, true);
      assert.ok(
        thoughts.some((part) => (part.thoughtSignature ?? '') !== ''),
        'the thought is signed',
      );
      const thoughtText = thoughts.map((part) => part.text ?? '').join('');
      assert.equal(answer.usageMetadata?.thoughtsTokenCount, countTextTokens(thoughtText));
      assert.ok(!(answer.text ?? '').includes(thoughtText), 'the answer text holds no thought');

      let streamedThought = '';
      for await (const chunk of await client.models.generateContentStream({
        model,
        contents: prompt,
        config,
      })) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? [])
          if (part.thought === true) streamedThought += part.text ?? '';
      }
      assert.equal(streamedThought, thoughtText);
    });
  }
});

describe('openai', () => {
  test('Responses API on B-1 and C-1: a reasoning item before the message, streamed the same', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (const model of ['B-1', 'C-1']) {
      const request = { model, input: prompt, reasoning: { effort: 'low' as const }, store: false };
      const response = await client.responses.create(request);
      const [reasoning, message] = response.output;
      assert.equal(reasoning?.type, 'reasoning', model);
      assert.equal(message?.type, 'message', model);
      const thought = (reasoning.content ?? []).map((part) => part.text).join('');
      assert.ok(thought.length > 0);
      assert.equal(response.usage?.output_tokens_details.reasoning_tokens, countTextTokens(thought));

      let streamedThought = '';
      const stream = await client.responses.create({ ...request, stream: true });
      for await (const event of stream)
        if (event.type === 'response.reasoning_text.delta') streamedThought += event.delta;
      assert.equal(streamedThought, thought, model);
    }
  });

  test('chat completions on B-1: no reasoning text, reasoning_tokens reported', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'B-1',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: prompt }],
    });
    const reasoningTokens = completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    assert.ok(reasoningTokens > 0);
    const content = completion.choices[0]?.message.content ?? '';
    assert.match(content, /^Simulated reply/, 'the thought is not in the answer');
  });
});
