/**
 * The Converse codec as a family of the gateway, reached from every client surface (A, B, C) by
 * the one `codecs/registry.ts` line, against the strict Bedrock mock with a Bedrock API key
 * (Converse's bearer credential). A stream from the real service needs the Bedrock provider, which
 * re-frames AWS's binary event stream (`src/providers/bedrock/`, tested there); the built-in
 * simulator serves only families with a surface.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startBedrockMock } from '../upstream-mocks/bedrock/index.ts';
import type { MockUpstream } from '../upstream-mocks/kit/server.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, sseJson, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const bedrockKey = 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=';
const config = writeTempConfig(
  'config.yaml',
  `models:
  - name: nova-lite
    family: converse
    upstreamModel: amazon.nova-lite-v1:0
    contextWindow: 300000
    maxOutputTokens: 5000
    pricing: { inputPerMillion: 0.06, outputPerMillion: 0.24 }
    capabilities: { vision: true }
`,
);

let proxied: TestGateway;
let mock: MockUpstream;

before(async () => {
  mock = await startBedrockMock({ apiKey: bedrockKey });
  proxied = await startTestGateway(
    { CONVERSE_BASE_URL: mock.url, CONVERSE_API_KEY: bedrockKey },
    config.path,
  );
});
after(async () => {
  await proxied.close();
  await mock.close();
  config.remove();
});

type Surface = 'alpha' | 'beta' | 'gamma';

function clientCall(
  surface: Surface,
  key: string,
  stream: boolean,
): { path: string; headers: Record<string, string>; body: object } {
  const text = 'Hello from a client';
  if (surface === 'alpha')
    return {
      path: '/v1/chat/completions',
      headers: alphaAuth(key),
      body: { model: 'nova-lite', max_tokens: 64, stream, messages: [{ role: 'user', content: text }] },
    };
  if (surface === 'beta')
    return {
      path: '/v1/messages',
      headers: betaAuth(key),
      body: { model: 'nova-lite', max_tokens: 64, stream, messages: [{ role: 'user', content: text }] },
    };
  return {
    path: gammaPath('nova-lite', stream),
    headers: gammaAuth(key),
    body: { contents: [{ role: 'user', parts: [{ text }] }] },
  };
}

/** All the answer's text, in whichever surface's shape it came back. */
function answerText(surface: Surface, body: string, stream: boolean): string {
  const payloads: unknown[] = stream ? sseJson(body) : [JSON.parse(body)];
  const texts = payloads.map((payload) => {
    const json = JSON.stringify(payload);
    if (surface === 'alpha')
      return [...json.matchAll(/"(?:content)":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('');
    if (surface === 'beta')
      return [...json.matchAll(/"text(?:_delta)?"?,?"?(?:text)?":"((?:[^"\\]|\\.)*)"/g)]
        .map((m) => m[1])
        .join('');
    return [...json.matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('');
  });
  return texts.join('');
}

for (const surface of ['alpha', 'beta', 'gamma'] as const) {
  describe(`${surface} surface → converse model`, () => {
    test('the strict Bedrock mock, by Bedrock API key (json)', async () => {
      const call = clientCall(surface, proxied.key, false);
      const answer = await post(proxied.url, call.path, call.headers, call.body);
      assert.equal(answer.status, 200, answer.text);
      assert.match(answerText(surface, answer.text, false), /mock bedrock reply to: Hello from a client/);
      const sent = mock.requests.at(-1);
      assert.equal(sent?.path, '/model/amazon.nova-lite-v1%3A0/converse');
      assert.equal(sent.headers.authorization, `Bearer ${bedrockKey}`);
    });
  });
}
