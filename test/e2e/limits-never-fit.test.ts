/**
 * Limits that let real traffic through: a request that can never fit the key's tokens per minute
 * is refused at once with `x-should-retry: false` and no retry-after (the SDKs stop instead of
 * looping), naming both numbers; a model the operator adds is limited by requests per minute, not
 * by the spec's token table, until a token limit is configured for its family.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

/** About 12,000 tokens: more than A's default 10,000 tokens per minute on its own. */
const longPrompt = 'The quick brown fox jumps over the lazy dog. '.repeat(1_200);

function countingFetch(): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
    calls: () => calls,
  };
}

describe('the spec limits on a static key (not declared unlimited)', () => {
  let gateway: TestGateway;
  let config: { path: string; remove(): void };

  before(async () => {
    config = writeTempConfig(
      'limits.yaml',
      `models:
  - { name: house-a, family: alpha, contextWindow: 128000, maxOutputTokens: 16384 }
  - { name: house-g, family: gamma, contextWindow: 128000, maxOutputTokens: 16384 }
limits:
  gamma: { tpm: 5000 }
`,
    );
    gateway = await startTestGateway({ MODELGATE_UNLIMITED_KEYS: '' }, config.path);
  });

  after(async () => {
    await gateway.close();
    config.remove();
  });

  test('Claude Code on A-2 with a ~12k-token prompt: one 429 that says waiting cannot help, no retry loop', async () => {
    const counter = countingFetch();
    const anthropic = new Anthropic({
      apiKey: gateway.key,
      baseURL: gateway.url,
      maxRetries: 3,
      fetch: counter.fetch,
    });
    const refused = await anthropic.messages
      .create({ model: 'A-2', max_tokens: 1024, messages: [{ role: 'user', content: longPrompt }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(refused instanceof Anthropic.RateLimitError, String(refused));
    assert.equal(counter.calls(), 1, 'the SDK did not retry');
    assert.equal(refused.headers.get('x-should-retry'), 'false');
    assert.equal(refused.headers.get('retry-after'), null);
    assert.match(
      refused.message,
      /needs \d{5} tokens .*limit of 10000 tokens per minute.*waiting cannot help/,
    );
    assert.equal((refused.error as { error: { type: string } }).error.type, 'rate_limit_error');
  });

  test('the same on the OpenAI surface, in its shape', async () => {
    const counter = countingFetch();
    const openai = new OpenAI({
      apiKey: gateway.key,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 3,
      fetch: counter.fetch,
    });
    const refused = await openai.chat.completions
      .create({ model: 'A-2', messages: [{ role: 'user', content: longPrompt }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(refused instanceof OpenAI.RateLimitError, String(refused));
    assert.equal(counter.calls(), 1);
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.match(refused.message, /limit of 10000 tokens per minute/);
  });

  test('a model the operator added (maxOutputTokens 16384) answers a request without max_tokens', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (let index = 0; index < 3; index++) {
      const answer = await openai.chat.completions.create({
        model: 'house-a',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      assert.equal(answer.choices[0]?.finish_reason, 'stop');
    }
  });

  test("a family with its own tpm limits the operator's models too", async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const refused = await openai.chat.completions
      .create({ model: 'house-g', messages: [{ role: 'user', content: 'Hello' }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(refused instanceof OpenAI.RateLimitError, String(refused));
    assert.match(refused.message, /limit of 5000 tokens per minute for the gamma family/);
    assert.equal(refused.headers.get('x-should-retry'), 'false');
  });
});
