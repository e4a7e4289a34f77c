/**
 * The route table holds exact paths: a trailing slash, another case, a doubled slash or an
 * absolute-form target is an unknown path (404 in the shape it resembles), never the route it
 * looks like; a query string does not change which route answers.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
});

/** GETs a raw request target (node's fetch would normalize it). */
function getTarget(target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path: target, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

test('/healthz answers only at its exact path, with or without a query string', async () => {
  assert.deepEqual(await getTarget('/healthz'), { status: 200, body: '{"status":"ok"}' });
  assert.deepEqual(await getTarget('/healthz?probe=1'), { status: 200, body: '{"status":"ok"}' });
  for (const target of ['/healthz/', '/HEALTHZ', '//healthz', `${gateway.url}/healthz`]) {
    const answer = await getTarget(target);
    assert.equal(answer.status, 404, target);
    assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'unknown_url', target);
  }
});

test('everything under /admin is the admin API: no admin key is a 401 in its own shape, not an unknown path', async () => {
  for (const target of ['/admin', '/admin/keys', '/admin/keys?limit=1']) {
    const answer = await getTarget(target);
    assert.equal(answer.status, 401, target);
    assert.doesNotMatch(answer.body, /unknown_url/, target);
  }
  assert.equal((await getTarget('/adminx')).status, 404);
});
