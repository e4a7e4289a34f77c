import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CallTimers } from './timers.ts';

// Real timers with small values and wide margins: these are what the timers are for.

test('first byte: fires with a timeout error when no body byte came in time', async () => {
  const timers = new CallTimers(
    { connectMs: 1000, firstByteMs: 30, idleMs: 1000 },
    new AbortController().signal,
  );
  timers.arm();
  await sleep(80);
  assert.equal(timers.signal.aborted, true);
  assert.ok(timers.fired);
  assert.equal(timers.fired.kind, 'timeout');
  assert.match(timers.fired.message, /did not start answering/);
});

test('idle: every chunk resets it; a flowing stream has no total cap; a stall fires it', async () => {
  const timers = new CallTimers(
    { connectMs: 1000, firstByteMs: 1000, idleMs: 500 },
    new AbortController().signal,
  );
  // Chunks 100 ms apart for longer than the idle time: a loaded machine may stretch a sleep a lot
  // before it stretches one past the idle time.
  for (let index = 0; index < 8; index++) {
    timers.chunk();
    await sleep(100);
  }
  assert.equal(timers.signal.aborted, false, '800 ms of chunks 100 ms apart: no timeout');
  assert.ok(timers.firstByteMs !== undefined);
  await sleep(1_500);
  assert.equal(timers.fired?.message, 'the upstream stopped sending data');
});

test('idle longer than the first-byte time: chunks keep the call alive past both; a stall fires idle', async () => {
  const timers = new CallTimers(
    { connectMs: 1000, firstByteMs: 100, idleMs: 400 },
    new AbortController().signal,
  );
  timers.arm();
  // Chunks 50 ms apart for well past the first-byte time and the idle time.
  for (let index = 0; index < 12; index++) {
    timers.chunk();
    await sleep(50);
  }
  assert.equal(timers.signal.aborted, false, '600 ms of chunks 50 ms apart: no timeout');
  await sleep(1_200);
  assert.equal(timers.fired?.message, 'the upstream stopped sending data');
});

test('the client leaving aborts the call at once; stop() disarms everything', async () => {
  const client = new AbortController();
  const timers = new CallTimers({ connectMs: 1000, firstByteMs: 30, idleMs: 30 }, client.signal);
  timers.arm();
  client.abort();
  assert.equal(timers.signal.aborted, true);
  assert.equal(timers.fired, undefined);
  const quiet = new CallTimers(
    { connectMs: 1000, firstByteMs: 30, idleMs: 30 },
    new AbortController().signal,
  );
  quiet.arm();
  quiet.stop();
  await sleep(60);
  assert.equal(quiet.signal.aborted, false);
});

test('a client already gone aborts before anything is sent; arming later changes nothing', () => {
  const client = new AbortController();
  client.abort('client_abort');
  const timers = new CallTimers({ connectMs: 1000, firstByteMs: 30, idleMs: 30 }, client.signal);
  assert.equal(timers.signal.aborted, true);
  timers.arm();
  timers.stop();
  assert.equal(timers.fired, undefined);
});

test('an unarmed call is armed by its first chunk (a call is never left unwatched)', async () => {
  const client = new AbortController();
  const timers = new CallTimers({ connectMs: 1000, firstByteMs: 1000, idleMs: 30 }, client.signal);
  timers.chunk();
  await sleep(80);
  assert.equal(timers.fired?.message, 'the upstream stopped sending data');
  const watched = new CallTimers({ connectMs: 1000, firstByteMs: 1000, idleMs: 1000 }, client.signal);
  watched.chunk();
  client.abort();
  assert.equal(watched.signal.aborted, true);
  watched.stop();
});

test('a body read whole completes the call: its first byte timed, no timer left to fire', async () => {
  const client = new AbortController();
  const timers = new CallTimers({ connectMs: 1000, firstByteMs: 30, idleMs: 30 }, client.signal);
  timers.arm();
  timers.complete();
  assert.ok(timers.firstByteMs !== undefined);
  assert.equal(timers.waitingForFirstByte, false);
  await sleep(80);
  assert.equal(timers.fired, undefined);
  assert.equal(timers.signal.aborted, false);
});
