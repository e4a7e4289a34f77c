/**
 * One request must not freeze the gateway. Prompts of long unbroken runs
 * (64,000 × "一": 19 s of BPE; a 15 MB body of "x": > 10 min) were counted whole before anything
 * could refuse them. Here the gateway runs as its own process (the simulator in it, as by default)
 * and `/healthz` is timed while such requests arrive together; each is answered promptly, and a
 * SIGTERM during one ends the process within its drain timeout.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, writeTempConfig } from '../kit/e2e.ts';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';

const staticKey = 'mg-hostile-cpu-static-0123456789';
const adminKey = 'mg-hostile-cpu-admin-0123456789';
const drainTimeoutMs = 1_000;
let gateway: GatewayProcess;
let config: { path: string; remove(): void };

before(async () => {
  // The static key is unlimited (as an operator's own key usually is): its prompts are counted, never refused.
  config = writeTempConfig(
    'cpu.yaml',
    `shutdown: { drainTimeoutMs: ${drainTimeoutMs} }\nlimits: { staticKeys: { static-1: { unlimited: true } } }\n`,
  );
  gateway = await startGatewayProcess({
    MODELGATE_KEYS: staticKey,
    MODELGATE_ADMIN_KEY: adminKey,
    MODELGATE_CONFIG: config.path,
  });
});

after(async () => {
  await gateway.close();
  config.remove();
});

/** `length` Han characters from a seeded generator: every request different (no memo helps). */
function randomHan(length: number, seed: number): string {
  let state = seed;
  const codes = new Array<number>(length);
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    codes[index] = 0x4e00 + (state % 20_000);
  }
  let text = '';
  for (let index = 0; index < length; index += 8_192)
    text += String.fromCharCode(...codes.slice(index, index + 8_192));
  return text;
}

function gammaBody(text: string): string {
  return JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] });
}

/** Times `/healthz` every 20 ms until `until` settles; returns the slowest answer in ms. */
async function slowestHealthz(until: Promise<unknown>): Promise<number> {
  const state = { done: false };
  void until.finally(() => {
    state.done = true;
  });
  let slowest = 0;
  while (!state.done) {
    const started = performance.now();
    const answer = await fetch(`${gateway.url}/healthz`);
    await answer.arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return slowest;
}

test('ten 192 KB "一" prompts and a 15 MB "x" body at once: /healthz stays fast, each is answered', async (context) => {
  const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
    name: 'restricted',
    rpm: 1,
    tpm: 100,
    budget_usd: 0.01,
    models: ['B-4'],
  });
  assert.equal(created.status, 201, created.text);
  const restricted = (created.json as { key: string }).key;

  const hanBodies = Array.from({ length: 10 }, (_, index) =>
    JSON.stringify({
      model: 'B-4',
      max_tokens: 10,
      messages: [{ role: 'user', content: index === 0 ? '一'.repeat(64_000) : randomHan(64_000, index) }],
    }),
  );
  const fifteenMb = gammaBody('x'.repeat(15 * 1024 * 1024));
  const counted = JSON.stringify({
    model: 'A-2',
    max_tokens: 10,
    messages: [{ role: 'user', content: randomHan(64_000, 99) }],
  });

  const started = performance.now();
  const answers = Promise.all([
    ...hanBodies.map((body) => post(gateway.url, '/v1/messages', betaAuth(restricted), body)),
    // C-3 (32,760 tokens): refused from the bytes alone (at least 15 MiB / 128 bytes a token).
    post(gateway.url, gammaPath('C-3', false), gammaAuth(staticKey), fifteenMb),
    // Counted whole (64,000 random Han characters fit A-2's 128,000 tokens): sliced, never blocking.
    post(gateway.url, '/v1/chat/completions', alphaAuth(staticKey), counted),
  ]);
  const slowest = await slowestHealthz(answers);
  const results = await answers;
  const elapsed = performance.now() - started;
  context.diagnostic(`slowest /healthz ${slowest.toFixed(0)} ms; all answered in ${elapsed.toFixed(0)} ms`);

  for (const answer of results.slice(0, 10)) {
    assert.equal(answer.status, 429, answer.text.slice(0, 300));
    assert.match(answer.text, /rate_limit_error/);
  }
  const [c3, a2] = results.slice(10);
  assert.ok(c3 !== undefined && a2 !== undefined);
  assert.equal(c3.status, 400, c3.text.slice(0, 300));
  assert.match(c3.text, /context window of 32760 tokens/);
  assert.equal(a2.status, 200, a2.text.slice(0, 300));
  assert.ok(slowest < 1_000, `/healthz took ${slowest.toFixed(0)} ms`);
  assert.ok(elapsed < 60_000, `the answers took ${elapsed.toFixed(0)} ms`);
});

test('a 15 MB prompt the bounds cannot decide (C-1, 1,000,000 tokens) is counted to the cap and answered', async () => {
  const started = performance.now();
  const answer = await post(
    gateway.url,
    gammaPath('C-1', false),
    gammaAuth(staticKey),
    gammaBody('x'.repeat(15 * 1024 * 1024)),
  );
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  // The simulator's usage: the counted part exact, the rest at its tokens per byte (8 "x" a token).
  const usage = (answer.json as { usageMetadata: { promptTokenCount: number } }).usageMetadata;
  assert.ok(
    Math.abs(usage.promptTokenCount - (15 * 1024 * 1024) / 8) < 1_000,
    String(usage.promptTokenCount),
  );
  assert.ok(performance.now() - started < 60_000);
});

test('SIGTERM while a 15 MB prompt is being counted ends the process within its drain timeout', async () => {
  const body = JSON.stringify({
    model: 'A-2',
    max_tokens: 10,
    messages: [{ role: 'user', content: randomHan(5_000_000, 5) }],
  });
  const pending = post(gateway.url, '/v1/chat/completions', alphaAuth(staticKey), body).catch(
    () => undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const signalled = performance.now();
  gateway.child.kill('SIGTERM');
  const exit = await gateway.exited;
  const took = performance.now() - signalled;
  await pending;
  assert.equal(exit.code, 0, gateway.stderr());
  // The drain timeout, the 5 s grace for aborted requests, and room for a loaded machine.
  assert.ok(took < drainTimeoutMs + 5_000 + 3_000, `exited ${took.toFixed(0)} ms after SIGTERM`);
});
