/**
 * The cloud SDKs stay out of a gateway that does not need them: loading the gateway and building
 * Vertex and Azure providers loads neither google-auth-library nor @azure/identity; the first token
 * a provider asks for loads its own library, and only it. Every module this file loads is imported
 * after the resolve hook is in place (each test file runs in its own process).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});

const loaded = (library: string): boolean =>
  [...resolved].some((url) => url.includes(`/node_modules/${library}/`));

test('building the providers loads no cloud SDK; the first token loads only its own', async () => {
  await import('../server/start-gateway.ts');
  const { createVertexProvider } = await import('./vertex/index.ts');
  const { azureOpenAIPreset } = await import('./azure-openai/index.ts');
  const { startVertexMock } = await import('../../test/upstream-mocks/vertex/index.ts');
  const { createHttpTransport } = await import('../upstream/http-transport.ts');
  const { codecOf, chatRequest, userText } = await import('./test-kit.ts');

  const mock = await startVertexMock({ projectId: 'proj-a' });
  const keyFile = join(mkdtempSync(join(tmpdir(), 'sdk-loading-')), 'key.json');
  writeFileSync(keyFile, JSON.stringify(mock.serviceAccountKey));
  const vertex = createVertexProvider({
    name: 'v',
    preset: 'vertex',
    project: 'proj-a',
    location: 'us-central1',
    baseUrl: mock.url,
    credentials: { keyFile },
  });
  const azure = azureOpenAIPreset({
    name: 'az',
    preset: 'azure-openai',
    baseUrl: 'https://resource.openai.azure.com',
    credentials: { tenantId: 't', clientId: 'c', clientSecret: 's' },
  });
  const http = createHttpTransport({ connectMs: 5_000, connections: 1 });
  azure.transport(http);
  assert.equal(loaded('google-auth-library'), false, 'google-auth-library loaded before any Vertex token');
  assert.equal(loaded('@azure/identity'), false, '@azure/identity loaded before any Entra token');

  const request = codecOf('gamma').encodeRequest(chatRequest('gemini-2.5-flash', [userText('hi')]), {
    baseUrl: vertex.baseUrl,
    apiKey: undefined,
    model: 'gemini-2.5-flash',
  });
  const response = await vertex.transport(http).send(vertex.baseUrl, request, new AbortController().signal);
  assert.equal(response.status, 200);
  await response.text();
  assert.equal(loaded('google-auth-library'), true);
  assert.equal(loaded('@azure/identity'), false, 'a Vertex token loads nothing of Azure');

  // An Entra token loads @azure/identity (which refuses a plain-HTTP authority before any network).
  const entra = azureOpenAIPreset({
    name: 'az2',
    preset: 'azure-openai',
    baseUrl: 'https://resource.openai.azure.com',
    credentials: {
      tenantId: 't',
      clientId: 'c',
      clientSecret: 'the-client-secret',
      authorityHost: 'http://127.0.0.1:9',
    },
  });
  const alpha = codecOf('alpha').encodeRequest(chatRequest('chat-prod', [userText('hi')]), {
    baseUrl: entra.baseUrl,
    apiKey: undefined,
    model: 'chat-prod',
  });
  await assert.rejects(
    entra.transport(http).send(entra.baseUrl, alpha, new AbortController().signal),
    (error: Error & { kind?: string }) =>
      error.kind === 'upstream' && /Entra ID token$/.test(error.message) && !error.message.includes('secret'),
  );
  assert.equal(loaded('@azure/identity'), true);
  await http.close();
  await mock.close();
});
