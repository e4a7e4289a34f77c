import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderProcessMetrics, renderSnapshots } from './exposition.ts';
import { MetricsRegistry } from './registry.ts';

test('a snapshot renders as the text its registry renders (counters, histograms, gauges, overflow, escapes)', () => {
  const registry = new MetricsRegistry({ maxSeries: 2 });
  const requests = registry.counter('demo_requests_total', 'Requests.', ['surface', 'model']);
  requests.add(['alpha', 'A-1'], 3);
  requests.add(['beta', 'a"b\\c\nd']);
  requests.add(['gamma', 'C-1'], 2);
  const duration = registry.histogram('demo_seconds', 'Duration.', ['surface'], [0.1, 1, 2.5]);
  for (const value of [0.05, 0.1, 0.5, 3, 9]) duration.observe(['alpha'], value);
  registry.histogram('demo_bare_seconds', 'Bare.', [], [1]).observe([], 0.5);
  registry.gauge('demo_depth', 'Depth.', [], () => [[[], 7]]);
  registry.gauge('demo_moves_total', 'Moves.', ['state'], () => [[['open'], 2]], 'counter');
  const rendered: string[] = [];
  renderSnapshots(registry.snapshot(), rendered);
  assert.equal(rendered.join(''), registry.render());
});

test('process metrics of several workers: HELP and TYPE once, every sample under its worker label', () => {
  const worker = (lag: number): Parameters<typeof renderProcessMetrics>[0][number]['metrics'] => [
    {
      name: 'nodejs_eventloop_lag_seconds',
      help: 'Lag.',
      type: 'gauge',
      values: [{ value: lag, labels: {} }],
    },
    {
      name: 'nodejs_gc_duration_seconds',
      help: 'GC.',
      type: 'histogram',
      values: [
        { value: 1, labels: { le: 0.1, kind: 'minor' }, metricName: 'nodejs_gc_duration_seconds_bucket' },
        { value: 0.01, labels: { kind: 'minor' }, metricName: 'nodejs_gc_duration_seconds_sum' },
      ],
    },
  ];
  const out: string[] = [];
  renderProcessMetrics(
    [
      { worker: '1', metrics: worker(0.002) },
      { worker: '2', metrics: worker(0.5) },
    ],
    out,
  );
  assert.equal(
    out.join(''),
    '# HELP nodejs_eventloop_lag_seconds Lag.\n# TYPE nodejs_eventloop_lag_seconds gauge\n' +
      'nodejs_eventloop_lag_seconds{worker="1"} 0.002\nnodejs_eventloop_lag_seconds{worker="2"} 0.5\n' +
      '# HELP nodejs_gc_duration_seconds GC.\n# TYPE nodejs_gc_duration_seconds histogram\n' +
      'nodejs_gc_duration_seconds_bucket{le="0.1",kind="minor",worker="1"} 1\n' +
      'nodejs_gc_duration_seconds_sum{kind="minor",worker="1"} 0.01\n' +
      'nodejs_gc_duration_seconds_bucket{le="0.1",kind="minor",worker="2"} 1\n' +
      'nodejs_gc_duration_seconds_sum{kind="minor",worker="2"} 0.01\n',
  );
});
