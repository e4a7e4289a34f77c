/**
 * The shared limits store unreachable (`onStoreFailure: closed`, the default): every chat request
 * is a 503 in its surface's shape with `retry-after`, quickly, and an outage does not fill the log
 * with a line per request about rate-limit headers that cannot be read either.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';
import { freePort } from '../kit/real-servers.ts';

let gateway: GatewayProcess;

before(async () => {
  // A port nothing listens on: every Redis command fails at once (connection refused).
  const port = await freePort();
  gateway = await startGatewayProcess({
    MODELGATE_REDIS_URL: `redis://127.0.0.1:${port}`,
    MODELGATE_KEYS: 'sk-down-1',
    LOG_LEVEL: 'warn',
  });
});

after(async () => {
  await gateway.close();
});

test('Redis unreachable: 503 with retry-after on every surface, no per-request limits warning', async () => {
  const asks = [
    {
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-down-1' },
      body: { model: 'A-1', messages: [{ role: 'user', content: 'hi' }] },
    },
    {
      path: '/v1/messages',
      headers: { 'x-api-key': 'sk-down-1', 'anthropic-version': '2023-06-01' },
      body: { model: 'B-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    },
    {
      path: '/v1/models/C-1:generateContent',
      headers: { 'x-goog-api-key': 'sk-down-1' },
      body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    },
  ];
  for (let round = 0; round < 4; round++) {
    for (const ask of asks) {
      const response = await fetch(`${gateway.url}${ask.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ask.headers },
        body: JSON.stringify(ask.body),
      });
      const text = await response.text();
      // B's own status for "try again shortly" is 529 (overloaded_error); A and C answer 503.
      assert.ok([503, 529].includes(response.status), `${ask.path}: ${response.status} ${text}`);
      assert.ok(Number(response.headers.get('retry-after')) >= 1, ask.path);
    }
  }
  const lines = gateway.stderr().split('\n');
  assert.equal(
    lines.filter((line) => line.includes('rate-limit headers unavailable')).length,
    0,
    'no line per request about the rate-limit headers',
  );
  assert.ok(
    lines.some((line) => line.includes('"level":"warn"') || line.includes('"level":"error"')),
    'the outage itself is logged',
  );
});
