import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readUpstreamError } from '../codecs/shared/upstream-errors.ts';
import { checkStreamEvents } from '../ir/check-stream-events.ts';
import { simulatedError } from './faults.ts';
import { chatRequest, collect, decodeStream, header, testSimulator, upstreamInput } from './test-kit.ts';
import { codecs, specFamilies, type SpecFamily } from '../../test/kit/spec-families.ts';

const never = new AbortController().signal;

/** The status each family really answers with for a requested status. */
const statusByFamily: Record<SpecFamily, Record<number, number>> = {
  alpha: { 400: 400, 401: 401, 403: 403, 404: 404, 429: 429, 500: 500, 503: 503, 529: 503 },
  beta: { 400: 400, 401: 401, 403: 403, 404: 404, 429: 429, 500: 500, 503: 529, 529: 529 },
  gamma: { 400: 400, 401: 403, 403: 403, 404: 404, 429: 429, 500: 500, 503: 503, 529: 503 },
};

function isFamilyShape(family: SpecFamily, body: Record<string, unknown>): boolean {
  const error = body['error'] as Record<string, unknown> | undefined;
  if (family === 'alpha') return typeof error?.['type'] === 'string' && 'code' in error && 'param' in error;
  if (family === 'beta') return body['type'] === 'error' && typeof error?.['type'] === 'string';
  return typeof error?.['code'] === 'number' && typeof error['status'] === 'string';
}

describe('x-simulate-error', () => {
  for (const family of specFamilies) {
    for (const requested of [400, 401, 403, 404, 429, 500, 503, 529]) {
      test(`${family} ${requested}`, async () => {
        const input = upstreamInput(family, chatRequest(), { 'x-simulate-error': String(requested) });
        const response = await testSimulator().handle(input, never);
        const statusWanted = statusByFamily[family][requested];
        assert.equal(response.status, statusWanted);
        const text = await response.text();
        const body = JSON.parse(text) as Record<string, unknown>;
        assert.ok(isFamilyShape(family, body), text);
        const expected = simulatedError(requested);
        assert.ok(expected !== undefined);
        assert.deepEqual(body, codecs[family].encodeError(expected).body);
        const retries = requested === 429 || requested === 503 || requested === 529;
        assert.equal(header(response.headers, 'retry-after'), retries ? '1' : undefined);
        const decoded = readUpstreamError(
          response.status,
          response.headers,
          codecs[family].decodeErrorBody(text),
          Date.now(),
        ).error;
        if (requested === 429) assert.equal(decoded.retryAfterSeconds, 1);
      });
    }
  }

  test('unknown statuses and garbage are ignored', async () => {
    for (const value of ['418', 'abc', '']) {
      const response = await testSimulator().handle(
        upstreamInput('alpha', chatRequest(), { 'x-simulate-error': value }),
        never,
      );
      assert.equal(response.status, 200, value);
    }
  });
});

describe('stream faults', () => {
  for (const family of specFamilies) {
    test(`${family}: x-simulate-stream-error-after sends N tokens then the in-stream error`, async () => {
      const input = upstreamInput(family, chatRequest({ stream: true }), {
        'x-simulate-stream-error-after': '3',
      });
      const response = await testSimulator().handle(input, never);
      assert.equal(response.status, 200);
      const events = decodeStream(family, await collect(response));
      assert.deepEqual(checkStreamEvents(events), []);
      assert.equal(events.filter((event) => event.type === 'text-delta').length, 3);
      const last = events.at(-1);
      assert.equal(last?.type, 'error');
      assert.equal(last.error.kind, 'overloaded');
    });

    test(`${family}: x-simulate-stream-cut-after ends after N tokens with no terminal event`, async () => {
      const input = upstreamInput(family, chatRequest({ stream: true }), {
        'x-simulate-stream-cut-after': '2',
      });
      const chunks = await collect(await testSimulator().handle(input, never));
      const raw = chunks.join('');
      assert.ok(!raw.includes({ alpha: '[DONE]', beta: 'message_stop', gamma: 'finishReason' }[family]), raw);
      const events = decodeStream(family, chunks);
      assert.equal(events.filter((event) => event.type === 'text-delta').length, 2);
      const last = events.at(-1);
      assert.equal(last?.type, 'error');
      assert.equal(last.error.kind, 'upstream');
    });
  }

  test('a limit beyond the reply errors after the last token instead of finishing', async () => {
    const input = upstreamInput('beta', chatRequest({ stream: true, sampling: { maxOutputTokens: 3 } }), {
      'x-simulate-stream-error-after': '50',
    });
    const events = decodeStream('beta', await collect(await testSimulator().handle(input, never)));
    assert.equal(events.filter((event) => event.type === 'text-delta').length, 3);
    assert.equal(events.at(-1)?.type, 'error');
    assert.ok(!events.some((event) => event.type === 'finish'));
  });
});

describe('timing and abort', () => {
  test('x-simulate-latency-ms delays the response headers', async () => {
    const started = performance.now();
    const response = await testSimulator().handle(
      upstreamInput('alpha', chatRequest(), { 'x-simulate-latency-ms': '60' }),
      never,
    );
    assert.ok(performance.now() - started >= 55);
    assert.equal(response.status, 200);
  });

  test('aborting during the latency rejects', async () => {
    const controller = new AbortController();
    const pending = testSimulator().handle(
      upstreamInput('alpha', chatRequest(), { 'x-simulate-latency-ms': '5000' }),
      controller.signal,
    );
    setTimeout(() => controller.abort(), 10);
    await assert.rejects(pending);
  });

  test('time to first token and inter-token delay pace the stream', async () => {
    const simulator = testSimulator({ timeToFirstTokenMs: 40, interTokenDelayMs: 10 });
    const started = performance.now();
    const response = await simulator.handle(
      upstreamInput('alpha', chatRequest({ stream: true, sampling: { maxOutputTokens: 5 } })),
      never,
    );
    assert.ok(performance.now() - started < 30, 'headers come before the first token');
    const arrivals: number[] = [];
    for await (const _chunk of response.body) arrivals.push(performance.now() - started);
    assert.ok((arrivals[0] ?? 0) >= 38, `first token at ${arrivals[0]}`);
    assert.ok((arrivals[4] ?? 0) >= 38 + 4 * 9, `fifth token at ${arrivals[4]}`);
  });

  test('a non-streamed reply takes as long as its stream would', async () => {
    const simulator = testSimulator({ timeToFirstTokenMs: 20, interTokenDelayMs: 10 });
    const started = performance.now();
    await simulator.handle(upstreamInput('beta', chatRequest({ sampling: { maxOutputTokens: 4 } })), never);
    assert.ok(performance.now() - started >= 20 + 3 * 10 - 2);
  });

  test('aborting stops generation', async () => {
    const simulator = testSimulator({ interTokenDelayMs: 15 });
    const controller = new AbortController();
    const response = await simulator.handle(
      upstreamInput('gamma', chatRequest({ stream: true })),
      controller.signal,
    );
    let received = 0;
    for await (const _chunk of response.body) {
      received++;
      if (received === 2) controller.abort();
    }
    assert.equal(received, 2);
    assert.equal(simulator.stats.tokensGenerated, 2);
    assert.equal(simulator.stats.activeStreams, 0);
  });

  test('cancel() stops a stream nobody reads', async () => {
    const simulator = testSimulator({ interTokenDelayMs: 15 });
    const response = await simulator.handle(upstreamInput('alpha', chatRequest({ stream: true })), never);
    const iterator = response.body[Symbol.asyncIterator]();
    await iterator.next();
    assert.equal(simulator.stats.activeStreams, 1);
    response.cancel();
    assert.deepEqual(await iterator.next(), { done: true, value: undefined });
    assert.equal(simulator.stats.activeStreams, 0);
    assert.equal(simulator.stats.tokensGenerated, 1);
  });
});
