import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayError } from '../ir/index.ts';
import { BodyGuard } from './body-guard.ts';

const options = {
  maxBytesReading: 1000,
  readTimeoutMs: 10_000,
  minBytesPerSecond: 100,
  rateWindowMs: 40,
  sweepMs: 10,
};

test('declared lengths take their bytes up front; what does not fit is refused; finishing gives them back', () => {
  const guard = new BodyGuard(options);
  const first = guard.start(600);
  assert.equal(guard.bytesReading, 600);
  assert.throws(
    () => guard.start(500),
    (error: GatewayError) => error.kind === 'overloaded' && error.retryAfterSeconds === 1,
  );
  const second = guard.start(400);
  first.finish();
  first.finish();
  assert.equal(guard.bytesReading, 400);
  second.finish();
  assert.equal(guard.bytesReading, 0);
});

test('a body without a declared length takes its bytes as they come, until they do not fit', () => {
  const guard = new BodyGuard(options);
  const watch = guard.start(undefined);
  assert.equal(watch.receive(700), undefined);
  assert.equal(watch.receive(400)?.kind, 'overloaded');
  watch.finish();
  assert.equal(guard.bytesReading, 0);
});

test('below the minimum rate after the grace: cut with a 408 on the second late sweep', async () => {
  const guard = new BodyGuard(options);
  const watch = guard.start(500);
  const cut = new Promise<GatewayError>((resolve) => {
    watch.onCut = resolve;
  });
  watch.receive(1);
  const error = await cut;
  assert.equal(error.kind, 'request_timeout');
  assert.match(error.message, /slower than 100 bytes per second/);
  assert.equal(guard.bytesReading, 0);
});

test('a body keeping the rate is not cut; the read deadline ends it anyway', async () => {
  const guard = new BodyGuard({ ...options, readTimeoutMs: 150 });
  const watch = guard.start(1000);
  const seen: { error?: GatewayError } = {};
  watch.onCut = (cut) => {
    seen.error = cut;
  };
  for (let index = 0; index < 8 && seen.error === undefined; index++) {
    watch.receive(20);
    await sleep(25);
  }
  assert.equal(seen.error?.kind, 'request_timeout');
  assert.match(seen.error.message, /not complete within 0.15 s/);
});

test('large bodies (over 1 MiB) may fill three quarters of the cap: the rest stays for small ones', () => {
  const mib = 1024 * 1024;
  const guard = new BodyGuard({ ...options, maxBytesReading: 16 * mib });
  const large = [guard.start(4 * mib), guard.start(4 * mib), guard.start(4 * mib)];
  assert.throws(
    () => guard.start(2 * mib),
    (error: GatewayError) => error.kind === 'overloaded',
  );
  const small = guard.start(mib);
  assert.equal(guard.bytesReading, 13 * mib);
  for (const watch of [...large, small]) watch.finish();
  assert.equal(guard.bytesReading, 0);
});

test('a body sent fast, then stopped one byte short, is cut once a window passes without it', async () => {
  const guard = new BodyGuard(options);
  const watch = guard.start(900);
  const cut = new Promise<GatewayError>((resolve) => {
    watch.onCut = resolve;
  });
  watch.receive(899);
  const started = performance.now();
  const error = await cut;
  assert.equal(error.kind, 'request_timeout');
  assert.ok(performance.now() - started >= 40, 'not before a whole window');
});
