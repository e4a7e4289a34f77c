/**
 * `x-simulate-*` fault-injection headers are for the built-in simulator: a real upstream never
 * sees them (it might act on them), and the answer is the real upstream's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post } from '../kit/e2e.ts';
import { startTestGateway } from '../kit/test-gateway.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

const faults = {
  'x-simulate-error': '500',
  'x-simulate-latency-ms': '5000',
  'x-simulate-stream-error-after': '1',
  'x-simulate-stream-cut-after': '1',
};

test('x-simulate-* headers never reach a real upstream, on any surface or family', async () => {
  const { gateway, upstream } = setup;
  const calls = [
    () =>
      post(
        gateway.url,
        '/v1/chat/completions',
        { ...alphaAuth(gateway.key), ...faults },
        {
          model: 'A-2',
          max_tokens: 20,
          messages: [{ role: 'user', content: 'Hi' }],
        },
      ),
    () =>
      post(
        gateway.url,
        '/v1/messages',
        { ...betaAuth(gateway.key), ...faults },
        {
          model: 'B-1',
          max_tokens: 20,
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        },
      ),
    () =>
      post(
        gateway.url,
        gammaPath('C-1', false),
        { ...gammaAuth(gateway.key), ...faults },
        {
          contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        },
      ),
  ];
  for (const call of calls) {
    const before = upstream.requests.length;
    const started = performance.now();
    const answer = await call();
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.ok(performance.now() - started < 4000, 'no simulated latency on a real upstream');
    assert.equal(upstream.requests.length - before, 1);
    const sent = upstream.requests.at(-1)?.headers ?? {};
    assert.deepEqual(
      Object.keys(sent).filter((name) => name.startsWith('x-simulate')),
      [],
      'the real upstream got no fault header',
    );
  }
});

test('the built-in simulator still takes them (the offline default)', async () => {
  const gateway = await startTestGateway();
  try {
    const answer = await post(
      gateway.url,
      '/v1/chat/completions',
      { ...alphaAuth(gateway.key), 'x-simulate-error': '429' },
      {
        model: 'A-2',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'Hi' }],
      },
    );
    assert.equal(answer.status, 429, answer.text);
  } finally {
    await gateway.close();
  }
});
