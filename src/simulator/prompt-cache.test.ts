import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ChatRequest, type Message, type TextPart } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { promptBlocks } from './plan.ts';
import { PromptCache, type CacheOptions } from './prompt-cache.ts';
import { chatRequest, decodeJson, decodeStream, collect, testSimulator, upstreamInput } from './test-kit.ts';
import { TokenCountCache } from './token-cache.ts';
import { specFamilies } from '../../test/kit/spec-families.ts';

const never = new AbortController().signal;
const counter = new TokenCountCache();

/** About 1,500 tokens of system prompt: above every family's caching minimum. */
const longSystem = Array.from({ length: 300 }, (_, index) => `Rule ${index}: answer plainly.`).join(' ');
const systemTokens = countTextTokens(longSystem);

const explicit: CacheOptions = { explicit: true, granularity: 1, automaticTtl: undefined };
const implicitA: CacheOptions = { explicit: false, granularity: 128, automaticTtl: undefined };
const implicitC: CacheOptions = { explicit: false, granularity: 1, automaticTtl: undefined };

function user(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function conversation(system: TextPart[], ...messages: Message[]): ChatRequest {
  return { ...chatRequest({ system }), messages };
}

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

test('B: a marked system prompt is written once, then read; unmarked prompts are not cached', () => {
  const time = clock();
  const cache = new PromptCache(time.now);
  const marked = conversation(
    [{ type: 'text', text: longSystem, cacheControl: { type: 'ephemeral' } }],
    user('hi'),
  );
  const blocks = promptBlocks(marked, counter);
  assert.deepEqual(cache.measure('m', blocks, explicit), { readTokens: 0, writeTokens: systemTokens });
  assert.deepEqual(cache.measure('m', blocks, explicit), { readTokens: systemTokens, writeTokens: 0 });
  // Another question after the same cached prefix still reads it.
  const next = promptBlocks(
    conversation([{ type: 'text', text: longSystem, cacheControl: { type: 'ephemeral' } }], user('bye')),
    counter,
  );
  assert.deepEqual(cache.measure('m', next, explicit), { readTokens: systemTokens, writeTokens: 0 });
  // Another model has its own cache; no marker, no caching.
  assert.deepEqual(cache.measure('other', blocks, explicit), { readTokens: 0, writeTokens: systemTokens });
  const unmarked = promptBlocks(conversation([{ type: 'text', text: longSystem }], user('hi')), counter);
  assert.deepEqual(cache.measure('m', unmarked, explicit), { readTokens: 0, writeTokens: 0 });
});

test('B: below 1024 tokens nothing is cached; the TTL is 5 minutes, or 1 hour with ttl 1h, renewed by a hit', () => {
  const time = clock();
  const cache = new PromptCache(time.now);
  const short = promptBlocks(
    conversation([{ type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } }], user('hi')),
    counter,
  );
  assert.deepEqual(cache.measure('m', short, explicit), { readTokens: 0, writeTokens: 0 });
  assert.deepEqual(cache.measure('m', short, explicit), { readTokens: 0, writeTokens: 0 });

  const fiveMinutes = promptBlocks(
    conversation([{ type: 'text', text: longSystem, cacheControl: { type: 'ephemeral' } }], user('hi')),
    counter,
  );
  cache.measure('m', fiveMinutes, explicit);
  time.advance(4 * 60_000);
  assert.equal(cache.measure('m', fiveMinutes, explicit).readTokens, systemTokens); // renewed here
  time.advance(4 * 60_000);
  assert.equal(cache.measure('m', fiveMinutes, explicit).readTokens, systemTokens);
  time.advance(5 * 60_000 + 1);
  assert.deepEqual(cache.measure('m', fiveMinutes, explicit), { readTokens: 0, writeTokens: systemTokens });

  const oneHour = promptBlocks(
    conversation(
      [{ type: 'text', text: `${longSystem} (long)`, cacheControl: { type: 'ephemeral', ttl: '1h' } }],
      user('hi'),
    ),
    counter,
  );
  cache.measure('m', oneHour, explicit);
  time.advance(50 * 60_000);
  assert.ok(cache.measure('m', oneHour, explicit).readTokens > 0);
});

test('B: a growing conversation reads the previous breakpoint (looking back up to 20 blocks) and writes the rest', () => {
  const cache = new PromptCache(clock().now);
  const system: TextPart[] = [{ type: 'text', text: longSystem }];
  const first: Message = {
    role: 'user',
    content: [{ type: 'text', text: 'q1', cacheControl: { type: 'ephemeral' } }],
  };
  const turn1 = promptBlocks(conversation(system, first), counter);
  const firstLength = systemTokens + countTextTokens('q1');
  assert.deepEqual(cache.measure('m', turn1, explicit), { readTokens: 0, writeTokens: firstLength });
  const turn2 = promptBlocks(
    conversation(
      system,
      user('q1'),
      { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2', cacheControl: { type: 'ephemeral' } }] },
    ),
    counter,
  );
  const secondLength = firstLength + countTextTokens('a1') + countTextTokens('q2');
  assert.deepEqual(cache.measure('m', turn2, explicit), {
    readTokens: firstLength,
    writeTokens: secondLength - firstLength,
  });
});

test('B: top-level automatic caching marks the last block', () => {
  const cache = new PromptCache(clock().now);
  const blocks = promptBlocks(conversation([{ type: 'text', text: longSystem }], user('hi')), counter);
  const automatic = { ...explicit, automaticTtl: '' };
  const total = systemTokens + countTextTokens('hi');
  assert.deepEqual(cache.measure('m', blocks, automatic), { readTokens: 0, writeTokens: total });
  assert.deepEqual(cache.measure('m', blocks, automatic), { readTokens: total, writeTokens: 0 });
});

test('A and C: long prompts are cached implicitly; A reports reads in 128-token steps, C exactly', () => {
  const cache = new PromptCache(clock().now);
  const first = promptBlocks(conversation([{ type: 'text', text: longSystem }], user('hello')), counter);
  const again = promptBlocks(conversation([{ type: 'text', text: longSystem }], user('other')), counter);
  assert.deepEqual(cache.measure('a', first, implicitA), { readTokens: 0, writeTokens: 0 });
  const stepped = 1024 + Math.floor((systemTokens - 1024) / 128) * 128;
  assert.deepEqual(cache.measure('a', again, implicitA), { readTokens: stepped, writeTokens: 0 });
  assert.deepEqual(cache.measure('c', first, implicitC), { readTokens: 0, writeTokens: 0 });
  assert.deepEqual(cache.measure('c', again, implicitC), { readTokens: systemTokens, writeTokens: 0 });
  // Short prompts never are.
  const short = promptBlocks(conversation([], user('hello')), counter);
  cache.measure('c', short, implicitC);
  assert.deepEqual(cache.measure('c', short, implicitC), { readTokens: 0, writeTokens: 0 });
});

test('memory stays bounded: the oldest entries go first', () => {
  const cache = new PromptCache(clock().now, 16);
  for (let index = 0; index < 100; index++) {
    const blocks = promptBlocks(
      conversation([{ type: 'text', text: `${index} ${longSystem}` }], user('a'), user('b'), user('c')),
      counter,
    );
    cache.measure('c', blocks, implicitC);
    assert.ok(cache.size <= 16, `size ${cache.size}`);
  }
});

describe('through the simulator, in each family’s own usage fields', () => {
  const expected = {
    alpha: (json: Record<string, unknown>) =>
      (json.usage as { prompt_tokens_details: { cached_tokens: number } }).prompt_tokens_details
        .cached_tokens,
    beta: (json: Record<string, unknown>) =>
      (json.usage as { cache_read_input_tokens: number }).cache_read_input_tokens,
    gamma: (json: Record<string, unknown>) =>
      (json.usageMetadata as { cachedContentTokenCount?: number }).cachedContentTokenCount ?? 0,
  };
  for (const family of specFamilies) {
    test(`${family}: the second identical long request reads the cache, JSON and stream alike`, async () => {
      const simulator = testSimulator();
      const marker = family === 'beta' ? { cacheControl: { type: 'ephemeral' as const } } : {};
      const request = chatRequest({ system: [{ type: 'text', text: longSystem, ...marker }] });
      const ask = async (stream: boolean) =>
        simulator.handle(upstreamInput(family, { ...request, stream }), never);
      const first = JSON.parse(await (await ask(false)).text()) as Record<string, unknown>;
      const second = JSON.parse(await (await ask(false)).text()) as Record<string, unknown>;
      assert.equal(expected[family](first), 0);
      assert.ok(expected[family](second) >= 1024, JSON.stringify(second));
      const total = decodeJson(family, JSON.stringify(second)).usage.inputTokens;
      assert.equal(total, systemTokens + countTextTokens('What is the weather in Paris?'));
      if (family === 'beta') {
        const firstUsage = first.usage as Record<string, number>;
        assert.equal(firstUsage.cache_creation_input_tokens, systemTokens);
        assert.equal(firstUsage.input_tokens, total - systemTokens);
      }
      const streamed = decodeStream(family, await collect(await ask(true)));
      const end = streamed.at(-1);
      assert.equal(end?.type, 'message-end');
      assert.equal(
        end.usage.cacheReadTokens,
        decodeJson(family, JSON.stringify(second)).usage.cacheReadTokens,
      );
    });
  }

  test('beta: a fifth breakpoint is a 400, as upstream', async () => {
    const system: TextPart[] = Array.from({ length: 5 }, (_, index) => ({
      type: 'text',
      text: `part ${index}`,
      cacheControl: { type: 'ephemeral' },
    }));
    // The gateway's own encoder refuses first; the simulator refuses a raw body too.
    assert.throws(() => upstreamInput('beta', { ...chatRequest(), system }), /at most 4 cache breakpoints/);
    const raw = upstreamInput('beta', chatRequest());
    const body = JSON.parse(raw.body) as Record<string, unknown>;
    body.system = system.map((part) => ({
      type: 'text',
      text: part.text,
      cache_control: { type: 'ephemeral' },
    }));
    const answer = await testSimulator().handle({ ...raw, body: JSON.stringify(body) }, never);
    assert.equal(answer.status, 400);
    assert.match(await answer.text(), /at most 4 cache breakpoints per request, 5 were given/);
  });
});
