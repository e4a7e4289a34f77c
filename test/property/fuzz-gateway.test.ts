/**
 * The whole gateway under fuzzed bodies (HTTP in, the in-process simulator upstream): every
 * answer is a success in the surface's shape or a 4xx in its error shape. Never a 5xx.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { alphaAuth, betaAuth, gammaAuth, parseSse, post, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';
import { anyBody, fuzzParameters, requestCorpus, type SurfaceId } from './test-kit.ts';

let gateway: TestGateway;
let config: { path: string; remove(): void };
before(async () => {
  config = writeTempConfig(
    'fuzz.yaml',
    'limits:\n  alpha: { rpm: 1000000, tpm: 1000000000 }\n  beta: { rpm: 1000000, tpm: 1000000000 }\n  gamma: { rpm: 1000000, tpm: 1000000000 }\n',
  );
  gateway = await startTestGateway({}, config.path);
});
after(async () => {
  await gateway.close();
  config.remove();
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A success in the surface's shape (JSON or a well-formed SSE stream), or its error shape. */
function assertShape(
  surface: SurfaceId,
  status: number,
  text: string,
  contentType: string,
  label: string,
): void {
  assert.ok(status < 500, `${label}: ${status} ${text.slice(0, 300)}`);
  if (contentType.startsWith('text/event-stream')) {
    assert.equal(status, 200, label);
    const messages = parseSse(text);
    assert.ok(messages.length > 0, `${label}: empty stream`);
    for (const message of messages) if (message.data !== '[DONE]') JSON.parse(message.data);
    return;
  }
  const body = JSON.parse(text) as unknown;
  assert.ok(isObject(body), label);
  if (status === 200) {
    if (surface === 'alpha') assert.equal(body.object, 'chat.completion', label);
    else if (surface === 'beta') assert.equal(body.type, 'message', label);
    else assert.ok(Array.isArray(body.candidates), label);
    return;
  }
  assert.ok(status >= 400, label);
  if (surface === 'beta') {
    assert.equal(body.type, 'error', label);
    assert.ok(isObject(body.error) && typeof body.error.type === 'string', label);
  } else {
    assert.ok(isObject(body.error) && typeof body.error.message === 'string', label);
    if (surface === 'gamma') assert.equal(body.error.code, status, label);
  }
}

async function send(surface: SurfaceId, body: unknown, model = 'C-1', stream = false): Promise<void> {
  const text = JSON.stringify(body);
  const paths = {
    alpha: '/v1/chat/completions',
    beta: '/v1/messages',
    gamma: `/v1/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  };
  const auth = { alpha: alphaAuth, beta: betaAuth, gamma: gammaAuth }[surface](gateway.key);
  const answer = await post(gateway.url, paths[surface], auth, text);
  assertShape(
    surface,
    answer.status,
    answer.text,
    answer.headers.get('content-type') ?? '',
    `${surface} ${text.slice(0, 200)}`,
  );
}

for (const surface of ['alpha', 'beta', 'gamma'] as const) {
  describe(`${surface} surface end to end`, () => {
    test('any body: a success in the surface shape or a 4xx in its error shape', async () => {
      await fc.assert(
        fc.asyncProperty(
          anyBody(surface),
          fc.constantFrom('A-2', 'B-1', 'C-1', 'gamma/x'),
          fc.boolean(),
          (body, model, stream) => send(surface, body, model, stream),
        ),
        fuzzParameters(80),
      );
    });
  });
}

describe('request seed corpus end to end (replayed every run)', () => {
  for (const { name, value } of requestCorpus()) {
    test(name, async () => {
      await send(value.surface, value.body, value.model, value.stream);
    });
  }
});
