/**
 * Stop sequences as the official SDKs see them, on models of every family (the simulator knows
 * which sequence cut its text and says so in each family's wire): a B client gets
 * `stop_reason: "stop_sequence"` and the sequence, streamed and not; A and C clients get their
 * own stop reason, with the sequence where their wire has a place for it (A's `stop_reason`
 * extension of OpenAI-compatible servers, C's `finishMessage`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { gammaAuth, post, type GammaResponse } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
});

const models = ['A-2', 'B-1', 'C-1'] as const;
const prompt = 'Tell me about the sea.';
// A letter every simulated sentence holds: the text is cut before its first one.
const sequence = 'e';

for (const model of models) {
  test(`B SDK on ${model}: stop_sequence names the sequence, streamed and not`, async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const request = {
      model,
      max_tokens: 200,
      stop_sequences: ['zzz-never', sequence],
      messages: [{ role: 'user' as const, content: prompt }],
    };
    const message = await client.messages.create(request);
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, sequence);
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    assert.ok(!text.includes(sequence), `the text stops before the sequence: ${text}`);

    const streamed = await client.messages.stream(request).finalMessage();
    assert.equal(streamed.stop_reason, 'stop_sequence');
    assert.equal(streamed.stop_sequence, sequence);
    assert.deepEqual(streamed.content, message.content);
  });

  test(`B SDK on ${model}: a natural end is end_turn with no sequence`, async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const message = await client.messages.create({
      model,
      max_tokens: 200,
      stop_sequences: ['zzz-never'],
      messages: [{ role: 'user', content: prompt }],
    });
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.stop_sequence, null);
  });
}

test('openai SDK on B-1: a stop sequence is finish_reason stop, the sequence in stop_reason', async () => {
  const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const request = { model: 'B-1', stop: [sequence], messages: [{ role: 'user' as const, content: prompt }] };
  const completion = await client.chat.completions.create(request);
  const choice = completion.choices[0];
  assert.ok(choice !== undefined);
  assert.equal(choice.finish_reason, 'stop');
  assert.equal((choice as unknown as { stop_reason?: unknown }).stop_reason, sequence);
  assert.ok(!(choice.message.content ?? '').includes(sequence));

  const stream = await client.chat.completions.create({ ...request, stream: true });
  let stopReason: unknown;
  for await (const chunk of stream) {
    const streamedChoice = chunk.choices[0] as unknown as
      { finish_reason?: string; stop_reason?: unknown } | undefined;
    if (streamedChoice?.finish_reason === 'stop') stopReason = streamedChoice.stop_reason;
  }
  assert.equal(stopReason, sequence);
});

test('genai SDK on B-1: a stop sequence is STOP; the raw answer names it in finishMessage', async () => {
  const client = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
  const request = { model: 'B-1', contents: prompt, config: { stopSequences: [sequence] } };
  const answer = await client.models.generateContent(request);
  assert.equal(answer.candidates?.[0]?.finishReason, 'STOP');
  assert.ok(!(answer.text ?? '').includes(sequence));
  let streamedText = '';
  for await (const chunk of await client.models.generateContentStream(request))
    streamedText += chunk.text ?? '';
  assert.equal(streamedText, answer.text);

  // @google/genai's reader of the Developer API keeps no `finishMessage`: read the wire itself.
  const raw = await post(gateway.url, '/v1beta/models/B-1:generateContent', gammaAuth(gateway.key), {
    contents: [{ role: 'user', parts: [{ text: prompt }] }],
    generationConfig: { stopSequences: [sequence] },
  });
  const candidate = (raw.json as GammaResponse).candidates?.[0] as { finishMessage?: string };
  assert.equal(candidate.finishMessage, `Stopped at the stop sequence "${sequence}"`);
});
