/**
 * A gateway configured with none of the optional backends loads none of their libraries: no
 * PostgreSQL or Redis client, no OpenTelemetry SDK or exporter, no cloud SDK, no AWS signing, no
 * dashboard chart library, nor undici's entry point (its fetch, WebSocket and mock agents); not at
 * start and not for a chat request. Each would be resident memory the idle gateway never uses
 * (bench/README.md, "Memory"). Every module is imported after the resolve hook is in place (each
 * test file runs in its own process).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
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

const optionalLibraries = [
  'pg',
  'redis',
  '@redis',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  'google-auth-library',
  '@azure/identity',
  '@aws-sdk',
  '@smithy',
  'uplot',
];

function loadedOptionalLibraries(): string[] {
  const loaded = optionalLibraries.filter((library) =>
    [...resolved].some((url) => url.includes(`/node_modules/${library}/`)),
  );
  // undici's entry point (fetch, WebSocket, the mock agents…): the gateway loads its pool alone.
  if ([...resolved].some((url) => url.endsWith('/node_modules/undici/index.js')))
    loaded.push('undici/index.js');
  return loaded;
}

test('an unconfigured gateway loads no optional backend library, at start or for a chat', async () => {
  const { loadConfig } = await import('../config/load-config.ts');
  const { createLogger } = await import('../log/logger.ts');
  const { startGateway } = await import('./start-gateway.ts');
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-optional-'));
  const key = 'mg-optional-libraries-key-0123456789';
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    MODELGATE_KEYS: key,
    MODELGATE_DB: join(directory, 'modelgate.db'),
    LOG_LEVEL: 'silent',
  });
  const gateway = await startGateway(config, createLogger('silent', []));
  try {
    assert.deepEqual(loadedOptionalLibraries(), [], 'loaded at start');
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'A-2', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    assert.equal(answer.status, 200);
    await answer.text();
    assert.deepEqual(loadedOptionalLibraries(), [], 'loaded for a chat request');
  } finally {
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
