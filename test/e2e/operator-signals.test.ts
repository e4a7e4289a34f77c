/**
 * What an operator sees when an upstream refuses the gateway's key (the README's example once had
 * none: every request got a 502 and nothing said why): a warn line per failed call with the
 * upstream's status and its words (scrubbed), the deployment marked `misconfigured` in
 * `/admin/health` and `/metrics` until the next success, and request lines that name the model,
 * key, deployment, upstream status, tokens and cost.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { staticKeyId } from '../../src/keys/client-keys.ts';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const upstreamKey = 'up-alpha-secret-9d41c2e7';
const adminKey = 'mg-admin-key-operator-signals-0123';
const metricsToken = 'mg-metrics-token-operator-signals-0123';
let upstream: RecordingUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    ALPHA_BASE_URL: upstream.url,
    ALPHA_API_KEY: upstreamKey,
    MODELGATE_ADMIN_KEY: adminKey,
    MODELGATE_METRICS_TOKEN: metricsToken,
    LOG_LEVEL: 'info',
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const chat = (): Promise<{ status: number; text: string }> =>
  post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
    model: 'A-2',
    messages: [{ role: 'user', content: 'Hello' }],
  });

interface DeploymentHealth {
  id: string;
  misconfigured: boolean;
  last_status: number;
  failures: number;
}

async function deploymentOfA2(): Promise<{ status: string; deployment: DeploymentHealth }> {
  const answer = await fetch(`${gateway.url}/admin/health`, {
    headers: { authorization: `Bearer ${adminKey}` },
  });
  assert.equal(answer.status, 200);
  const health = (await answer.json()) as {
    status: string;
    models: { model: string; deployments: DeploymentHealth[] }[];
  };
  const model = health.models.find((entry) => entry.model === 'A-2');
  assert.ok(model !== undefined);
  return { status: health.status, deployment: model.deployments[0] as DeploymentHealth };
}

async function misconfiguredGauge(): Promise<string | undefined> {
  const answer = await fetch(`${gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  const text = await answer.text();
  return text
    .split('\n')
    .find((line) => line.startsWith('modelgate_deployment_misconfigured{') && line.includes('"A-2"'));
}

const lines = (): Record<string, unknown>[] =>
  gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

test('an upstream 401: a warn line with its status and scrubbed words, the deployment misconfigured until a success', async () => {
  upstream.script.push({
    status: 401,
    body: JSON.stringify({
      error: { message: `Incorrect API key provided: ${upstreamKey}`, type: 'invalid_request_error' },
    }),
  });
  const refused = await chat();
  assert.equal(refused.status, 502);

  const warned = lines().filter((line) => line.message === 'upstream call failed');
  assert.equal(warned.length, 1, gateway.logs.join('\n'));
  const warning = warned[0] as Record<string, unknown>;
  assert.equal(warning.level, 'warn');
  assert.equal(warning.status, 401);
  assert.equal(warning.family, 'alpha');
  assert.equal(warning.model, 'A-2');
  assert.equal(typeof warning.deployment, 'string');
  assert.match(String(warning.detail), /Incorrect API key provided/);
  assert.ok(!gateway.logs.join('\n').includes(upstreamKey), 'the upstream key never reaches the log');

  const request = lines().find((line) => line.message === 'request' && line.status === 502);
  assert.ok(request !== undefined);
  assert.equal(request.model, 'A-2');
  assert.equal(request.keyId, staticKeyId(gateway.key));
  assert.equal(request.upstreamStatus, 401);
  assert.equal(request.deployment, warning.deployment);

  const health = await deploymentOfA2();
  assert.equal(health.status, 'degraded');
  assert.equal(health.deployment.misconfigured, true);
  assert.equal(health.deployment.last_status, 401);
  assert.equal(health.deployment.failures, 1);
  assert.match((await misconfiguredGauge()) ?? '', / 1$/);

  // The next success (the recording upstream answers with the simulator) clears it.
  const served = await chat();
  assert.equal(served.status, 200, served.text);
  const healed = await deploymentOfA2();
  assert.equal(healed.deployment.misconfigured, false);
  assert.equal(healed.deployment.last_status, 200);
  assert.match((await misconfiguredGauge()) ?? '', / 0$/);

  const answered = lines().findLast(
    (line) => line.message === 'request' && line.path === '/v1/chat/completions' && line.status === 200,
  );
  assert.ok(answered !== undefined);
  assert.equal(answered.upstreamStatus, 200);
  assert.equal(typeof answered.inputTokens, 'number');
  assert.equal(typeof answered.outputTokens, 'number');
  assert.equal(typeof answered.cachedTokens, 'number');
  assert.equal(typeof answered.costUsd, 'number');
});
