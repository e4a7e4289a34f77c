/**
 * A gateway pointed at a real upstream, as shipped: the vendor's models are listed and routed
 * there at the vendor's prices; a model with no upstream is a 503 in the caller's family shape that
 * names the missing setting (the simulator stays off unless asked for) and is not listed; with no
 * upstream at all the simulator is the offline default, says so at start and marks its answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const hello = [{ role: 'user' as const, content: 'Hello' }];

describe('only BETA_BASE_URL configured (simulator not asked for)', () => {
  let upstream: RecordingUpstream;
  let gateway: TestGateway;

  before(async () => {
    upstream = await startRecordingUpstream();
    gateway = await startTestGateway({
      BETA_BASE_URL: upstream.url,
      BETA_API_KEY: 'up-b',
      MODELGATE_SIMULATOR: '',
    });
  });

  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  test("/v1/models lists Anthropic's models and B-1…B-4, never a model nothing serves", async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    assert.ok(ids.includes('claude-sonnet-4-5'), ids.join(' '));
    assert.ok(ids.includes('B-1'));
    for (const absent of ['A-1', 'C-1', 'gpt-4o', 'gemini-2.5-pro'])
      assert.equal(ids.includes(absent), false, absent);
    const anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const listed: string[] = [];
    for await (const model of anthropic.models.list()) listed.push(model.id);
    assert.ok(listed.includes('claude-sonnet-4-5'));
    assert.equal(listed.includes('A-2'), false);
  });

  test("a vendor model goes to the vendor's upstream under its own id, priced at the vendor's prices, not simulated", async () => {
    const anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const before = upstream.requests.length;
    const { data, response } = await anthropic.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: hello })
      .withResponse();
    const sent = upstream.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal((sent[0]?.json as { model: string }).model, 'claude-sonnet-4-5');
    assert.equal(sent[0]?.headers['x-api-key'], 'up-b');
    assert.equal(response.headers.get('x-modelgate-simulated'), null);
    const { input_tokens, output_tokens } = data.usage;
    const expected = (input_tokens * 3 + output_tokens * 15) / 1_000_000;
    assert.ok(Math.abs(Number(response.headers.get('x-modelgate-cost-usd')) - expected) < 1e-9);
  });

  test('a model with no upstream: a 503 in every surface shape naming the setting, told not to retry, nothing sent', async () => {
    const before = upstream.requests.length;
    const message = 'model A-1 has no upstream: set ALPHA_BASE_URL or a deployment';
    const alpha = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A-1',
      messages: hello,
    });
    assert.equal(alpha.status, 503);
    assert.equal(alpha.headers.get('x-should-retry'), 'false');
    assert.deepEqual(alpha.json, {
      error: { message, type: 'server_error', param: null, code: 'model_not_configured' },
    });
    const beta = await post(gateway.url, '/v1/messages', betaAuth(gateway.key), {
      model: 'A-1',
      max_tokens: 16,
      messages: hello,
    });
    assert.equal(beta.status, 503);
    assert.deepEqual((beta.json as { error: object }).error, { type: 'api_error', message });
    const gamma = await post(gateway.url, gammaPath('C-2', false), gammaAuth(gateway.key), {
      contents: [{ parts: [{ text: 'Hi' }] }],
    });
    assert.equal(gamma.status, 503);
    const gammaError = (gamma.json as { error: { status: string; message: string } }).error;
    assert.equal(gammaError.status, 'UNAVAILABLE');
    assert.equal(gammaError.message, 'model C-2 has no upstream: set GAMMA_BASE_URL or a deployment');
    assert.equal(upstream.requests.length, before);
    // The SDK reads x-should-retry: one call, no retry loop.
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 3 });
    await assert.rejects(
      openai.chat.completions.create({ model: 'A-1', messages: hello }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError);
        assert.match(error.message, /ALPHA_BASE_URL/);
        return true;
      },
    );
  });
});

describe('no upstream at all: the simulator is the offline default', () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway({ MODELGATE_SIMULATOR: '' });
  });

  after(async () => {
    await gateway.close();
  });

  test('the start says so, and every simulated answer carries x-modelgate-simulated: true', async () => {
    assert.ok(
      gateway.logs.some((line) =>
        line.includes('no upstream is configured: the built-in simulator answers every model'),
      ),
      gateway.logs.join('\n'),
    );
    const json = await post(gateway.url, '/v1/messages', betaAuth(gateway.key), {
      model: 'B-1',
      max_tokens: 16,
      messages: hello,
    });
    assert.equal(json.status, 200);
    assert.equal(json.headers.get('x-modelgate-simulated'), 'true');
    const stream = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A-2',
      messages: hello,
      stream: true,
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('x-modelgate-simulated'), 'true');
  });
});
