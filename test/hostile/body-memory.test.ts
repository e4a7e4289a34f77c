/**
 * Request bodies have a global memory bound: 40 connections each sending 15 MiB of an unfinished
 * 16 MiB body (default limits) — those beyond the cap on bytes being read get the overloaded
 * error at once (A 503, `retry-after`, connection closed, nothing read), RSS grows by far less
 * than the 600 MB sent, `/healthz` keeps answering, and once they leave a request is served.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';
import { healthzMs, holdRequest, type HeldAnswer } from './slow-clients.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

const mib = 1024 * 1024;

test('40 × 15 MiB of unfinished 16 MiB bodies: bounded RSS, the excess refused at once, /healthz answers', async () => {
  const chunk = Buffer.alloc(15 * mib, 0x20);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const uploads = Array.from({ length: 40 }, () => {
    const request = holdRequest({
      url: setup.gateway.url,
      path: '/v1/chat/completions',
      headers: {
        Authorization: `Bearer ${setup.gateway.key}`,
        'Content-Type': 'application/json',
        'Content-Length': String(16 * mib),
      },
      timeoutMs: 60_000,
    });
    request.write(chunk);
    return request;
  });
  try {
    // Every upload is either refused or has handed its 15 MiB to the gateway's socket.
    const deadline = performance.now() + 30_000;
    const settled = (): boolean =>
      uploads.every((upload) => upload.socket.destroyed || upload.socket.writableLength === 0);
    while (!settled() && performance.now() < deadline) await sleep(50);
    await sleep(300);
    const health = await healthzMs(setup.gateway.url);
    const refused = await Promise.all(
      uploads.map((upload) => Promise.race([upload.answer, sleep(20).then(() => undefined)])),
    );
    const overloaded = refused.filter(
      (answer): answer is HeldAnswer => answer !== undefined && answer.status === 503,
    );
    clearInterval(sampler);
    const growthMb = (peak - baseline) / 1e6;
    assert.ok(health < 1000, `/healthz took ${Math.round(health)} ms`);
    assert.ok(growthMb < 300, `RSS grew ${Math.round(growthMb)} MB`);
    assert.ok(overloaded.length >= 30, `${overloaded.length} refused at once`);
    for (const answer of overloaded) {
      assert.match(answer.head, /\r\nretry-after: 1\r\n/i);
      assert.equal(answer.closed, true);
      assert.equal((JSON.parse(answer.body) as { error?: { code?: string } }).error?.code, 'overloaded');
    }
  } finally {
    clearInterval(sampler);
    for (const upload of uploads) upload.close();
  }
  await sleep(200);
  const served = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(setup.gateway.key), {
    model: 'A-2',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  assert.equal(served.status, 200, served.text);
});
