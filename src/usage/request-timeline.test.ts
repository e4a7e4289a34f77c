import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttemptRecord } from '../gateway/delivery.ts';
import { overheadHeader, RequestTimeline } from './request-timeline.ts';

function attempt(headersMs: number | undefined, status = 200): AttemptRecord {
  return {
    model: 'B-1',
    family: 'beta',
    upstreamModel: 'B-1',
    status,
    startedAt: Date.now() - (headersMs ?? 0),
    headersMs,
  } as AttemptRecord;
}

test('overhead is the time to the answer minus the upstream waits (overlaps counted once)', () => {
  const arrival = performance.now() - 100;
  const timeline = new RequestTimeline(arrival);
  timeline.recordAttempt(attempt(40, 503));
  timeline.recordAttempt(attempt(30));
  const headers: Record<string, string> = {};
  timeline.answerStarting(headers);
  const elapsed = performance.now() - arrival;
  const overhead = Number(headers[overheadHeader]);
  // At least 100 ms since arrival; the two waits overlap (both end now): 40 ms of upstream time,
  // counted once. The upper bound is what elapsed, so a stalled machine cannot fail the test.
  assert.ok(overhead >= 59 && overhead <= elapsed - 40 + 1, `overhead ${overhead}, elapsed ${elapsed}`);
  assert.equal(timeline.overheadMs?.toFixed(2), headers[overheadHeader]);
  timeline.answerStarting(headers);
  assert.equal(Number(headers[overheadHeader]), overhead, 'fixed when the answer started');
});

test('with no upstream call, all the time is overhead', () => {
  const timeline = new RequestTimeline(performance.now() - 5);
  const headers: Record<string, string> = {};
  timeline.answerStarting(headers);
  assert.ok(Number(headers[overheadHeader]) >= 5);
});
