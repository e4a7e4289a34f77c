import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import { UpstreamRouter } from '../gateway/upstreams.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-routing-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

const transport: UpstreamTransport = {
  send: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
};

test('deployments, fallbacks (aliases resolved), per-model timeouts; defaults elsewhere', () => {
  const config = loadConfig(
    { BETA_BASE_URL: 'http://beta.example', BETA_API_KEY: 'family-key' },
    configFile(`
aliases: { smart: A-2 }
timeouts: { firstByteMs: 5000 }
models:
  - name: B-1
    deployments:
      - { id: main, weight: 3 }
      - { baseUrl: "http://second.example/", apiKey: second-key, upstreamModel: b1-large }
      - { family: alpha, baseUrl: "http://alpha.example", upstreamModel: gpt-x }
    fallbacks: [smart, C-1]
    timeouts: { idleMs: 700 }
retry: { attempts: 2 }
# A real beta beside simulated fallbacks: once a real upstream is configured, the simulator is asked for.
simulator: true
`),
  );
  const routing = config.routing['B-1'];
  assert.ok(routing);
  assert.deepEqual(routing.fallbacks, ['A-2', 'C-1']);
  assert.deepEqual(routing.timeouts, { connectMs: 10_000, firstByteMs: 5000, idleMs: 700 });
  assert.deepEqual(
    routing.deployments.map((deployment) => [deployment.id, deployment.family, deployment.weight]),
    [
      ['main', 'beta', 3],
      ['B-1#2', 'beta', 1],
      ['B-1#3', 'alpha', 1],
    ],
  );
  assert.equal(config.retry.attempts, 2);
  assert.equal(config.retry.maxAttempts, 6);
  assert.equal(config.routing['A-1'], undefined);

  const router = new UpstreamRouter(config, () => transport, transport);
  const b1 = config.models.find((entry) => entry.name === 'B-1');
  assert.ok(b1);
  const route = router.route(b1);
  const targets = route.deployments.map((deployment) => ({
    ...deployment.target,
    family: deployment.family,
  }));
  assert.deepEqual(targets, [
    { baseUrl: 'http://beta.example', apiKey: 'family-key', model: 'B-1', family: 'beta' },
    { baseUrl: 'http://second.example', apiKey: 'second-key', model: 'b1-large', family: 'beta' },
    // Another host never gets the family key.
    { baseUrl: 'http://alpha.example', apiKey: undefined, model: 'gpt-x', family: 'alpha' },
  ]);
  assert.deepEqual(
    route.chain.map((next) => next.entry.name),
    ['B-1', 'A-2', 'C-1'],
  );
  const health = JSON.stringify(router.health());
  assert.doesNotMatch(health, /family-key|second-key|example/, 'health shows no key or URL');
  assert.match(health, /"state":"closed"/);
});

test('fallback chains: their own fallbacks come after, each model once', () => {
  const config = loadConfig(
    {},
    configFile(`
models:
  - { name: B-1, fallbacks: [A-2, C-1] }
  - { name: A-2, fallbacks: [C-2, C-1] }
  - { name: C-1, fallbacks: [C-2] }
`),
  );
  const router = new UpstreamRouter(config, () => transport, transport);
  const b1 = config.models.find((entry) => entry.name === 'B-1');
  assert.ok(b1);
  assert.deepEqual(
    router.route(b1).chain.map((next) => next.entry.name),
    ['B-1', 'A-2', 'C-1', 'C-2'],
  );
});

test('refused at load: fallback cycles (named), unknown or self fallbacks, mixed baseUrl and deployments', () => {
  assert.throws(
    () =>
      loadConfig(
        {},
        configFile(`
models:
  - { name: A-1, fallbacks: [B-1] }
  - { name: B-1, fallbacks: [C-1] }
  - { name: C-1, fallbacks: [A-1] }
`),
      ),
    /fallbacks form a cycle: A-1 → B-1 → C-1 → A-1/,
  );
  assert.throws(() => loadConfig({}, configFile('models:\n  - { name: A-1, fallbacks: [A-1] }\n')), /itself/);
  assert.throws(() => loadConfig({}, configFile('models:\n  - { name: A-1, fallbacks: [Z-9] }\n')), /Z-9/);
  assert.throws(
    () =>
      loadConfig(
        {},
        configFile('models:\n  - { name: A-1, baseUrl: "http://x.example", deployments: [{ weight: 1 }] }\n'),
      ),
    /on its deployments/,
  );
  assert.throws(
    () => loadConfig({}, configFile('models:\n  - { name: A-1, deployments: [{ family: beta }] }\n')),
    /needs its own upstreamModel/,
  );
  assert.throws(
    () =>
      loadConfig(
        {},
        configFile('models:\n  - { name: A-1, deployments: [{ baseUrl: "http://x.example?q=1" }] }\n'),
      ),
    /without query/,
  );
  assert.throws(() => loadConfig({}, configFile('retry: { attempts: 0 }\n')), /attempts/);
});

test('with the simulator off, a model nothing serves is no fallback, no deployment and no health entry', () => {
  const config = loadConfig(
    { BETA_BASE_URL: 'http://beta.example' },
    configFile(`
models:
  - name: B-1
    fallbacks: [A-2, B-2]
  - name: B-3
    deployments:
      - { id: real }
      - { id: nowhere, family: alpha, upstreamModel: gpt-x }
`),
  );
  assert.equal(config.simulator.enabled, false);
  const router = new UpstreamRouter(config, () => transport, transport);
  const entry = (name: string) => {
    const found = config.models.find((model) => model.name === name);
    assert.ok(found);
    return found;
  };
  assert.deepEqual(
    router.route(entry('B-1')).chain.map((next) => next.entry.name),
    ['B-1', 'B-2'],
  );
  assert.deepEqual(
    router.route(entry('B-3')).deployments.map((deployment) => deployment.id),
    ['real'],
  );
  const listed = (router.health().models as { model: string }[]).map((model) => model.model);
  assert.equal(listed.includes('A-2'), false);
  assert.equal(listed.includes('B-1'), true);
});
