import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttemptRecord } from '../gateway/delivery.ts';
import { RequestTimeline } from '../usage/request-timeline.ts';
import { GatewayMetrics } from './gateway-metrics.ts';

function attempt(model: string, error?: AttemptRecord['error']): AttemptRecord {
  return {
    model,
    family: 'beta',
    upstreamModel: model,
    deployment: `${model}-east`,
    status: error === undefined ? 200 : 503,
    startedAt: 0,
    headersMs: 1,
    firstByteMs: 1,
    latencyMs: 1,
    billed: error === undefined,
    answered: error === undefined,
    error,
  };
}

function line(text: string, pattern: string): string | undefined {
  return text.split('\n').find((candidate) => candidate.startsWith(pattern));
}

test('a request retried, then served by a fallback: attempt kinds, one retry, one fallback', () => {
  const metrics = new GatewayMetrics({ models: ['B-1', 'B-4'], perKeyLabels: false, maxSeries: 100 });
  const timeline = new RequestTimeline(1_000, 0);
  const calls = [attempt('B-1', 'overloaded'), attempt('B-1', 'overloaded'), attempt('B-4')];
  calls.forEach((record, index) =>
    timeline.attempts.push({ record, sentAt: 1_000 + index * 100, endedAt: 1_050 + index * 100 }),
  );
  timeline.endedAt = 1_500;
  metrics.chatEnded({ surface: 'beta', model: 'B-1', timeline }, 200, undefined);
  const text = metrics.render();
  const count = 'gen_ai_client_operation_duration_seconds_count{gen_ai_provider_name="beta",';
  assert.equal(
    line(
      text,
      `${count}gen_ai_request_model="B-1",modelgate_attempt="primary",error_type="overloaded"}`,
    )?.split(' ')[1],
    '1',
  );
  assert.equal(
    line(
      text,
      `${count}gen_ai_request_model="B-1",modelgate_attempt="retry",error_type="overloaded"}`,
    )?.split(' ')[1],
    '1',
  );
  assert.equal(
    line(text, `${count}gen_ai_request_model="B-4",modelgate_attempt="fallback",error_type=""}`)?.split(
      ' ',
    )[1],
    '1',
  );
  // The answering call lasts until the answer ended: 1.5 s − 1.2 s.
  assert.equal(
    line(
      text,
      'gen_ai_client_operation_duration_seconds_sum{gen_ai_provider_name="beta",gen_ai_request_model="B-4"',
    )?.split(' ')[1],
    '0.3',
  );
  assert.equal(line(text, 'modelgate_retries_total{gen_ai_request_model="B-1"}')?.split(' ')[1], '1');
  assert.equal(
    line(text, 'modelgate_fallbacks_total{gen_ai_request_model="B-1",modelgate_fallback_model="B-4"}')?.split(
      ' ',
    )[1],
    '1',
  );
  assert.equal(
    line(
      text,
      'gen_ai_server_request_duration_seconds_sum{modelgate_surface="beta",gen_ai_request_model="B-1",http_response_status_class="2xx"}',
    )?.split(' ')[1],
    '0.5',
  );
});

test('models outside the catalog and config are `other`; an `n` fan-out is all primary', () => {
  const metrics = new GatewayMetrics({ models: ['A-1'], perKeyLabels: false, maxSeries: 100 });
  const timeline = new RequestTimeline(0, 0);
  for (const record of [attempt('alpha/custom-x'), attempt('alpha/custom-x')])
    timeline.attempts.push({ record, sentAt: 0, endedAt: 1 });
  timeline.endedAt = 10;
  metrics.chatEnded({ surface: 'alpha', model: 'alpha/custom-x', timeline }, 200, undefined);
  const text = metrics.render();
  assert.ok(!text.includes('custom-x'));
  assert.match(text, /gen_ai_request_model="other",modelgate_attempt="primary",error_type=""\} 2\n/);
  assert.doesNotMatch(text, /modelgate_retries_total\{/);
});
