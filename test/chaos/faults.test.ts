/**
 * One upstream fault at a time, checked exactly: what the client gets, what the upstream saw.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeUpstream, type Behaviour, type FakeUpstream } from './fake-upstream.ts';
import { chat, isSurfaceError, startChaosGateway, streamCompleted, type ChaosGateway } from './harness.ts';

const alphaChunk = (text: string): string =>
  `data: ${JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'up',
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  })}\n\n`;

const betaStart =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
const betaDelta = (text: string): string =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;

/**
 * Two A deployments (first, second) on two fake upstreams, 400 ms first-byte and idle timers: long
 * enough that the healthy second deployment answers within them on a loaded machine.
 */
describe('two deployments of one model', () => {
  let first: FakeUpstream;
  let second: FakeUpstream;
  let gateway: ChaosGateway;
  before(async () => {
    first = await startFakeUpstream();
    second = await startFakeUpstream();
    gateway = await startChaosGateway(`
models:
  - name: A-2
    deployments:
      - { id: first, baseUrl: "${first.url}", apiKey: first-key, weight: 1000000 }
      - { id: second, baseUrl: "${second.url}", apiKey: second-key, weight: 1 }
    timeouts: { firstByteMs: 400, idleMs: 400 }
retry: { backoffMs: 10, maxBackoffMs: 20 }
breaker: { failureThreshold: 0 }
`);
  });
  after(async () => {
    await gateway.close();
    await first.close();
    await second.close();
  });
  /** Both deployments behave alike (a deployment that failed before may be cooling: either may answer). */
  const both = (behaviour: Behaviour): void => {
    first.behave = () => behaviour;
    second.behave = () => behaviour;
  };
  const calls = (): number => first.stats.requests + second.stats.requests;

  const faults: [string, Behaviour][] = [
    ['no answer at all (first-byte timeout)', { kind: 'stall' }],
    ['headers, then nothing (first-byte timeout)', { kind: 'stall-body' }],
    ['connection reset', { kind: 'reset' }],
    ['503', { kind: 'status', status: 503 }],
    ['529 with retry-after', { kind: 'status', status: 529, headers: { 'retry-after': '1' } }],
    ['429 with retry-after-ms', { kind: 'status', status: 429, headers: { 'retry-after-ms': '20' } }],
  ];
  for (const [label, behaviour] of faults) {
    test(`${label} on the first: the second answers (stream and not)`, async () => {
      for (const stream of [false, true]) {
        first.behave = () => behaviour;
        const before = second.stats.requests;
        const answer = await chat(gateway, { surface: 'beta', model: 'A-2', stream });
        assert.equal(answer.status, 200, `${label}: ${answer.text}`);
        assert.equal(second.stats.requests, before + 1);
        assert.equal(answer.headers['x-modelgate-served-by'], 'A-2');
        if (stream) assert.ok(streamCompleted('beta', answer.text), answer.text);
        assert.ok(answer.totalMs < 2000, `${label}: ${answer.totalMs} ms`);
      }
      first.behave = () => ({ kind: 'simulate' });
    });
  }

  test('a 400 is never retried: one upstream call, the client gets it in its shape', async () => {
    both({
      kind: 'status',
      status: 400,
      body: '{"error":{"message":"bad request from upstream","type":"invalid_request_error"}}',
    });
    const before = calls();
    const answer = await chat(gateway, { surface: 'gamma', model: 'A-2', stream: false });
    assert.equal(answer.status, 400);
    assert.ok(isSurfaceError('gamma', answer), answer.text);
    assert.equal(calls(), before + 1);
    both({ kind: 'simulate' });
  });

  test('a stream that started is never retried: half a stream then garbage → the family error event', async () => {
    both({ kind: 'stream', chunks: [alphaChunk('Hel'), alphaChunk('lo')], then: 'garbage' });
    const before = calls();
    for (const surface of ['alpha', 'beta', 'gamma'] as const) {
      const answer = await chat(gateway, { surface, model: 'A-2', stream: true });
      assert.equal(answer.status, 200);
      assert.ok(answer.text.includes('Hel'), answer.text);
      assert.ok(!streamCompleted(surface, answer.text), `${surface}: no normal end`);
      if (surface === 'beta') assert.match(answer.text, /event: error\ndata: \{"type":"error"/);
      else assert.match(answer.text, /data: \{"error":\{/);
      if (surface === 'alpha') assert.ok(!answer.text.includes('[DONE]'));
    }
    assert.equal(calls(), before + 3, 'no second call once bytes reached the client');
    both({ kind: 'simulate' });
  });

  test('mid-stream reset and mid-stream stall (idle timer) → the family error event', async () => {
    for (const then of ['reset', 'stall'] as const) {
      both({ kind: 'stream', chunks: [alphaChunk('Hel')], then });
      const answer = await chat(gateway, { surface: 'beta', model: 'A-2', stream: true });
      assert.equal(answer.status, 200);
      assert.match(answer.text, /event: error/, then);
      if (then === 'stall') assert.match(answer.text, /stopped sending data/);
    }
    both({ kind: 'simulate' });
  });

  test('a slow answer within the timers is just slow', async () => {
    both({ kind: 'slow', delayMs: 100, then: { kind: 'simulate' } });
    const before = calls();
    const answer = await chat(gateway, { surface: 'alpha', model: 'A-2', stream: false });
    assert.equal(answer.status, 200);
    assert.equal(calls(), before + 1);
    both({ kind: 'simulate' });
  });
});

describe('one deployment, nothing to fall back to', () => {
  let upstream: FakeUpstream;
  let gateway: ChaosGateway;
  before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startChaosGateway(
      `
models:
  - { name: B-1, timeouts: { firstByteMs: 100 } }
retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 20 }
`,
      { BETA_BASE_URL: upstream.url, BETA_API_KEY: 'beta-key' },
    );
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  test('a stall on every attempt: a timeout in the surface shape, after two attempts', async () => {
    upstream.behave = () => ({ kind: 'stall' });
    const before = upstream.stats.requests;
    for (const surface of ['alpha', 'beta', 'gamma'] as const) {
      const answer = await chat(gateway, { surface, model: 'B-1', stream: true });
      assert.equal(answer.status, 504, answer.text);
      assert.ok(isSurfaceError(surface, answer), answer.text);
      assert.ok(answer.totalMs < 1000, `${answer.totalMs} ms`);
    }
    assert.equal(upstream.stats.requests - before, 6);
    upstream.behave = () => ({ kind: 'simulate' });
  });

  test('a long retry-after is not waited out: the client gets it, the upstream one call', async () => {
    upstream.behave = () => ({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '30' },
      body: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
    });
    const before = upstream.stats.requests;
    const answer = await chat(gateway, { surface: 'alpha', model: 'B-1', stream: false });
    assert.equal(answer.status, 429);
    assert.equal(answer.headers['retry-after'], '30');
    assert.equal(upstream.stats.requests - before, 1);
    upstream.behave = () => ({ kind: 'simulate' });
  });

  test('mid-stream death keeps the usage so far (the cost trailer) and ends with the error event', async () => {
    upstream.behave = () => ({ kind: 'stream', chunks: [betaStart, betaDelta('Hello')], then: 'reset' });
    const answer = await chat(gateway, { surface: 'alpha', model: 'B-1', stream: true });
    assert.equal(answer.status, 200);
    assert.match(answer.text, /"content":"Hello"/);
    assert.match(answer.text, /data: \{"error":\{/);
    assert.ok(!answer.text.includes('[DONE]'));
    // 12 input tokens and 1 output token at B-1's prices (3 / 15 USD per 1M).
    assert.equal(answer.trailers['x-modelgate-cost-usd'], '0.000051');
    upstream.behave = () => ({ kind: 'simulate' });
  });
});

describe('fallbacks', () => {
  let down: FakeUpstream;
  let gateway: ChaosGateway;
  const adminKey = 'mg-chaos-admin-key-0123456789';
  before(async () => {
    down = await startFakeUpstream();
    down.behave = () => ({ kind: 'status', status: 503 });
    gateway = await startChaosGateway(
      `
models:
  - name: C-1
    deployments: [{ id: c1-only, baseUrl: "${down.url}", apiKey: c-key }]
    fallbacks: [B-4, A-3]
  - { name: B-4, deployments: [{ id: b4-only, baseUrl: "${down.url}", apiKey: b-key }] }
retry: { backoffMs: 5, maxBackoffMs: 10 }
breaker: { failureThreshold: 2, cooldownMs: 60000 }
`,
      { MODELGATE_ADMIN_KEY: adminKey },
    );
  });
  after(async () => {
    await gateway.close();
    await down.close();
  });

  test('C-1 and B-4 down: A-3 answers in C-1’s name on every surface; x-modelgate-served-by says who', async () => {
    for (const surface of ['alpha', 'beta', 'gamma'] as const) {
      for (const stream of [false, true]) {
        const answer = await chat(gateway, { surface, model: 'C-1', stream });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.headers['x-modelgate-served-by'], 'A-3');
        if (surface !== 'gamma') assert.ok(answer.text.includes('"model":"C-1"'), answer.text);
        else if (!stream) assert.match(answer.text, /"candidates"/);
        if (stream) assert.ok(streamCompleted(surface, answer.text), answer.text);
      }
    }
  });

  test('the fallback’s own output cap applies (lowered, with a warning)', async () => {
    const answer = await chat(gateway, {
      surface: 'gamma',
      model: 'C-1',
      stream: false,
      body: { generationConfig: { maxOutputTokens: 8000 } },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.headers.warning), /max output lowered from 8000 to 4096 for the fallback A-3/);
  });

  test('the breakers opened: family C and B are skipped, visible in /admin/health', async () => {
    const before = down.stats.requests;
    const answer = await chat(gateway, { surface: 'alpha', model: 'C-1', stream: false });
    assert.equal(answer.status, 200);
    assert.equal(down.stats.requests, before, 'no call to the open circuits');
    const health = await fetch(`${gateway.url}/admin/health`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    assert.equal(health.status, 200);
    const body = (await health.json()) as {
      models: {
        model: string;
        deployments: { id: string; in_flight: number; breaker: { state: string } }[];
      }[];
    };
    const busy = body.models.flatMap((model) =>
      model.deployments.filter((deployment) => deployment.in_flight !== 0),
    );
    assert.deepEqual(busy, [], 'every call gave its in-flight slot back');
    const states = Object.fromEntries(
      body.models.flatMap((model) =>
        model.deployments.map((deployment) => [deployment.id, deployment.breaker.state]),
      ),
    );
    assert.equal(states['c1-only'], 'open');
    assert.equal(states['b4-only'], 'open');
    assert.equal(states['A-3'], 'closed');
    const text = JSON.stringify(body);
    assert.ok(!text.includes('c-key') && !text.includes(down.url), 'no key or URL in health');
  });
});
