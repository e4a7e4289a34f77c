/**
 * Microsoft Entra ID for Azure OpenAI with the real `@azure/identity` (MSAL underneath), end to end:
 * a `modelgate serve` process whose Azure provider has a client secret and an authority host on
 * loopback (a TLS mock of the identity platform, trusted through NODE_EXTRA_CA_CERTS: MSAL takes
 * only HTTPS authorities), instance discovery turned off (the loopback host is on no Microsoft
 * list). The library reads the OpenID metadata, asks the token endpoint for a client-credentials
 * grant on Azure OpenAI's scope, and the strict Azure mock accepts only a bearer the authority
 * signed for Azure OpenAI's audience. A wrong secret is refused by the authority: the client gets
 * the gateway's 502, without the secret or the identity platform's text.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import {
  cognitiveServicesAudience,
  startEntraAuthorityMock,
  type EntraAuthorityMock,
} from '../upstream-mocks/azure-openai/entra-authority.ts';
import { startAzureOpenAIMock } from '../upstream-mocks/azure-openai/mock.ts';
import { loopbackCertificate, type LoopbackCertificate } from '../upstream-mocks/kit/loopback-certificate.ts';
import { isPlainObject, type MockUpstream } from '../upstream-mocks/kit/server.ts';
import { alphaAuth, leaks, post, writeTempConfig } from '../kit/e2e.ts';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';

const certificate: LoopbackCertificate | undefined = loopbackCertificate();
const skip =
  certificate === undefined ? 'the openssl command is not installed (a loopback TLS certificate)' : false;

const application = { tenantId: randomUUID(), clientId: randomUUID(), clientSecret: `entra~${randomUUID()}` };
const wrongSecret = `entra~${randomUUID()}`;
const clientKey = 'sk-entra-client-key-0000000000000000';

let authority: EntraAuthorityMock;
let azure: MockUpstream;
let gateway: GatewayProcess;
let removeConfig: () => void = () => undefined;

before(async () => {
  if (certificate === undefined) return;
  authority = await startEntraAuthorityMock(application, certificate);
  azure = await startAzureOpenAIMock({
    verifyEntraToken: (token) => authority.verify(token, cognitiveServicesAudience),
  });
  const provider = (secret: string): string => `
    preset: azure-openai
    baseUrl: "${azure.url}"
    deployments: { chat-prod: gpt-4o-mini }
    credentials:
      tenantId: "${application.tenantId}"
      clientId: "${application.clientId}"
      clientSecret: "${secret}"
      authorityHost: "${authority.url}"
      disableInstanceDiscovery: "true"`;
  const model = (name: string, provider: string): string => `
  - name: ${name}
    family: alpha
    upstreamModel: chat-prod
    contextWindow: 128000
    maxOutputTokens: 4096
    pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 }
    provider: ${provider}`;
  const config = writeTempConfig(
    'entra.yaml',
    `
providers:
  azure-entra:${provider('${AZURE_CLIENT_SECRET}')}
  azure-entra-refused:${provider(wrongSecret)}
models:${model('via-entra', 'azure-entra')}${model('via-entra-refused', 'azure-entra-refused')}
`,
  );
  removeConfig = () => config.remove();
  gateway = await startGatewayProcess({
    MODELGATE_KEYS: clientKey,
    MODELGATE_CONFIG: config.path,
    MODELGATE_SIMULATOR: '',
    AZURE_CLIENT_SECRET: application.clientSecret,
    NODE_EXTRA_CA_CERTS: certificate.certFile,
  });
});

after(async () => {
  if (certificate === undefined) return;
  await gateway.close();
  await Promise.all([authority.close(), azure.close()]);
  removeConfig();
  certificate.remove();
});

test(
  'a client secret through @azure/identity: a token for Azure OpenAI’s audience, fetched once',
  { skip },
  async () => {
    const openai = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: 'via-entra',
      messages: [{ role: 'user', content: 'Hello through Entra ID' }],
    });
    assert.match(answer.choices[0]?.message.content ?? '', /Hello through Entra ID/);
    const stream = await openai.chat.completions.create({
      model: 'via-entra',
      messages: [{ role: 'user', content: 'Streamed through Entra ID' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.match(text, /Streamed through Entra ID/);

    // What the identity library asked: the tenant's OpenID metadata, then one client-credentials grant.
    const asked = authority.requests.map(
      (request) => `${request.method} ${request.path.split('?')[0] ?? ''}`,
    );
    assert.ok(
      asked.includes(`GET /${application.tenantId}/v2.0/.well-known/openid-configuration`),
      asked.join('\n'),
    );
    const grants = authority.requests.filter((request) => request.method === 'POST');
    assert.equal(grants.length, 1, 'one token for both calls');
    assert.equal(authority.issued, 1);
    const form = grants[0]?.body as Record<string, string>;
    assert.equal(form.grant_type, 'client_credentials');
    assert.equal(form.client_id, application.clientId);
    assert.equal(form.scope, `${cognitiveServicesAudience}/.default`);

    // What Azure OpenAI received: the authority's token as a bearer, no api-key.
    const chat = azure.requests.filter((request) => request.path.startsWith('/openai/'));
    assert.equal(chat.length, 2);
    for (const request of chat) {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      assert.ok(authority.verify(bearer, cognitiveServicesAudience));
      assert.equal(request.headers['api-key'], undefined);
    }
  },
);

test(
  'a secret Entra ID refuses: the gateway’s 502, no secret and no identity-platform text',
  { skip },
  async () => {
    const refused = await post(gateway.url, '/v1/chat/completions', alphaAuth(clientKey), {
      model: 'via-entra-refused',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(refused.status, 502, refused.text);
    assert.equal((JSON.parse(refused.text) as { error: { type: string } }).error.type, 'server_error');
    assert.deepEqual(
      leaks(refused.text, [wrongSecret, application.clientSecret, 'AADSTS', authority.url]),
      [],
    );
    assert.ok(
      authority.requests.some(
        (request) => isPlainObject(request.body) && request.body.client_secret === wrongSecret,
      ),
    );
    assert.equal(
      azure.requests.filter((request) => request.path.startsWith('/openai/')).length,
      2,
      'nothing sent to Azure OpenAI without a token',
    );
  },
);
