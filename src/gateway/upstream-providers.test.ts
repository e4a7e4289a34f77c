import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { GatewayError } from '../ir/index.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import { UpstreamRouter } from './upstreams.ts';

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-providers-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

const transport: UpstreamTransport = {
  send: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
};

test('a deployment on a named provider speaks its wire at its base URL, the key kept in the provider', () => {
  const config = loadConfig(
    {},
    configFile(`
providers:
  claude: { preset: anthropic, apiKey: sk-ant-secret-1 }
models:
  - name: A-1
    deployments: [{ id: on-claude, provider: claude, upstreamModel: claude-haiku-4-5 }]
`),
  );
  const router = new UpstreamRouter(config, () => transport, transport);
  const entry = config.models.find((model) => model.name === 'A-1');
  assert.ok(entry);
  const deployment = router.route(entry).deployments[0];
  assert.ok(deployment);
  assert.equal(deployment.codec.id, 'beta');
  assert.deepEqual(deployment.target, {
    baseUrl: 'https://api.anthropic.com',
    apiKey: undefined,
    model: 'claude-haiku-4-5',
  });
  assert.equal(deployment.simulated, false);
  const scrubbed = deployment.scrubber.scrub(
    new GatewayError('invalid_request', 'bad key sk-ant-secret-1 at https://api.anthropic.com/v1'),
    400,
  ).message;
  assert.ok(!scrubbed.includes('sk-ant-secret-1'), scrubbed);
  assert.ok(!scrubbed.includes('api.anthropic.com'), scrubbed);
});

test('an unknown preset is refused when the gateway builds its providers, naming the setting', () => {
  const config = loadConfig({}, configFile('providers:\n  mine: { preset: opneai, apiKey: k }\n'));
  assert.throws(
    () => new UpstreamRouter(config, () => transport, transport),
    (error: unknown) =>
      error instanceof ConfigError && /^providers\.mine\.preset: no preset "opneai"/.test(error.message),
  );
});
