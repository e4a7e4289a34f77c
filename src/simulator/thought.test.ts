import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { foldStream } from '../ir/fold-stream.ts';
import { checkStreamEvents } from '../ir/check-stream-events.ts';
import type { ChatRequest, ChatResponse, ReasoningPart } from '../ir/index.ts';
import { chatRequest, collect, decodeJson, decodeStream, testSimulator, upstreamInput } from './test-kit.ts';

const signal = new AbortController().signal;

async function answer(family: string, request: ChatRequest): Promise<ChatResponse> {
  const simulator = testSimulator();
  const response = await simulator.handle(upstreamInput(family, request), signal);
  return decodeJson(family, (await collect(response)).join(''));
}

async function streamed(family: string, request: ChatRequest): Promise<ChatResponse> {
  const simulator = testSimulator();
  const response = await simulator.handle(upstreamInput(family, { ...request, stream: true }), signal);
  const events = decodeStream(family, await collect(response));
  assert.deepEqual(checkStreamEvents(events), []);
  return foldStream(events);
}

function thoughtOf(response: ChatResponse): ReasoningPart | undefined {
  const first = response.choices[0]?.content[0];
  return first?.type === 'reasoning' ? first : undefined;
}

const thinking = chatRequest({ reasoning: { budgetTokens: 2048 }, sampling: { maxOutputTokens: 4096 } });

for (const family of ['beta', 'gamma']) {
  test(`${family}: a request that thinks gets a signed thought of exactly its thinking tokens`, async () => {
    const json = await answer(family, thinking);
    const thought = thoughtOf(json);
    assert.ok(thought !== undefined, 'the thought comes first');
    assert.ok((thought.signature ?? '') !== '');
    // A sixteenth of the budget, at most 192: 128 tokens, the tokens of the thought's text.
    assert.equal(json.usage.reasoningTokens, 128);
    assert.equal(countTextTokens(thought.text), 128);
    assert.equal(json.choices[0]?.content[1]?.type, 'text');

    assert.deepEqual(thoughtOf(await answer(family, thinking)), thought, 'deterministic');
    const fromStream = await streamed(family, thinking);
    assert.deepEqual(
      fromStream.choices.at(0)?.content,
      json.choices.at(0)?.content,
      'a stream folds to the answer',
    );
    assert.equal(fromStream.usage.reasoningTokens, 128);
  });
}

test('another request thinks another thought; a request that does not think gets none', async () => {
  const first = thoughtOf(await answer('beta', thinking));
  const other = thoughtOf(
    await answer('beta', { ...thinking, messages: chatRequest({}, 'Something else?').messages }),
  );
  assert.notEqual(first?.text, other?.text);
  assert.equal(thoughtOf(await answer('beta', chatRequest())), undefined);
  const off = await answer('beta', { ...thinking, reasoning: { budgetTokens: 0 } });
  assert.equal(thoughtOf(off), undefined);
});

test('alpha: reasoning tokens only, no thought (chat completions carry none)', async () => {
  const json = await answer('alpha', chatRequest({ reasoning: { effort: 'low' } }));
  assert.equal(json.usage.reasoningTokens, 48);
  assert.equal(thoughtOf(json), undefined);
});
