/**
 * Stored responses as an attacker uses them: reads are requests like any other (the key's slots
 * and requests per minute), checked before the store is read. (What one response may store is
 * bounded too: `src/server/responses-turn.test.ts`.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, post, writeTempConfig } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let upstream: RecordingUpstream;
let gateway: TestGateway;
let file: { path: string; remove(): void };

before(async () => {
  upstream = await startRecordingUpstream();
  file = writeTempConfig(
    'stored-responses.yaml',
    `
limits:
  alpha: { rpm: 4, tpm: 100000000 }
`,
  );
  gateway = await startTestGateway(
    {
      LOG_LEVEL: 'silent',
      // The test key is limited like any other key here.
      MODELGATE_UNLIMITED_KEYS: '',
      ALPHA_BASE_URL: upstream.url,
      ALPHA_API_KEY: 'up-alpha-stored',
    },
    file.path,
  );
});

after(async () => {
  await gateway.close();
  await upstream.close();
  file.remove();
});

interface StoredAnswer {
  id: string;
}

function get(path: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers: alphaAuth(gateway.key) });
}

test('stored-response reads count against the key’s requests per minute', async () => {
  const created = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
    model: 'A-2',
    input: 'Remember this',
  });
  assert.equal(created.status, 200, created.text);
  const { id } = created.json as StoredAnswer;
  const first = await get(`/v1/responses/${id}`);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('x-ratelimit-limit-requests'), '4');
  assert.equal(first.headers.get('x-ratelimit-remaining-requests'), '2');
  const items = await get(`/v1/responses/${id}/input_items?limit=1`);
  assert.equal(items.status, 200);
  const other = await fetch(`${gateway.url}/v1/responses/${id}`, {
    method: 'DELETE',
    headers: alphaAuth(gateway.key),
  });
  assert.equal(other.status, 200, 'the fourth request of the minute');
  const refused = await get(`/v1/responses/${id}/input_items?limit=1`);
  assert.equal(refused.status, 429);
  const body = (await refused.json()) as { error: { type: string; message: string } };
  assert.match(body.error.message, /Rate limit reached for requests per minute/);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
});
