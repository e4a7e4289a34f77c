import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsRegistry } from './registry.ts';

test('counters and histograms render in the Prometheus text format, buckets cumulative', () => {
  const registry = new MetricsRegistry({ maxSeries: 10 });
  const requests = registry.counter('demo_requests_total', 'Requests.', ['surface', 'model']);
  const duration = registry.histogram('demo_duration_seconds', 'Duration.', ['surface'], [0.1, 1]);
  requests.add(['alpha', 'A-1']);
  requests.add(['alpha', 'A-1'], 2);
  requests.add(['beta', 'B-1']);
  duration.observe(['alpha'], 0.05);
  duration.observe(['alpha'], 0.1);
  duration.observe(['alpha'], 0.5);
  duration.observe(['alpha'], 3);
  const text = registry.render();
  assert.match(text, /# HELP demo_requests_total Requests\.\n# TYPE demo_requests_total counter\n/);
  assert.match(text, /\ndemo_requests_total\{surface="alpha",model="A-1"\} 3\n/);
  assert.match(text, /\ndemo_requests_total\{surface="beta",model="B-1"\} 1\n/);
  assert.match(text, /\ndemo_duration_seconds_bucket\{surface="alpha",le="0.1"\} 2\n/);
  assert.match(text, /\ndemo_duration_seconds_bucket\{surface="alpha",le="1"\} 3\n/);
  assert.match(text, /\ndemo_duration_seconds_bucket\{surface="alpha",le="\+Inf"\} 4\n/);
  assert.match(text, /\ndemo_duration_seconds_sum\{surface="alpha"\} 3.65\n/);
  assert.match(text, /\ndemo_duration_seconds_count\{surface="alpha"\} 4\n/);
});

test('past the series cap observations go to one overflow series and are counted', () => {
  const registry = new MetricsRegistry({ maxSeries: 2 });
  const tokens = registry.counter('demo_tokens_total', 'Tokens.', ['key']);
  tokens.add(['k1'], 5);
  tokens.add(['k2'], 5);
  tokens.add(['k3'], 7);
  tokens.add(['k4'], 1);
  tokens.add(['k1'], 1);
  const text = registry.render();
  assert.match(text, /\ndemo_tokens_total\{key="k1"\} 6\n/);
  assert.match(text, /\ndemo_tokens_total\{key="overflow"\} 8\n/);
  assert.doesNotMatch(text, /k3|k4/);
  assert.match(text, /\nmodelgate_metrics_series_dropped_total\{metric="demo_tokens_total"\} 2\n/);
  const total = registry
    .snapshot()
    .find((metric) => metric.name === 'demo_tokens_total')
    ?.series.reduce((sum, series) => sum + series.value, 0);
  assert.equal(total, 19, 'nothing is lost, only folded');
});

test('label values are escaped; collected gauges are read at render time', () => {
  const registry = new MetricsRegistry({ maxSeries: 10 });
  registry.counter('demo_total', 'Demo.', ['name']).add(['a"b\\c\nd']);
  let depth = 3;
  registry.gauge('demo_depth', 'Depth.', [], () => [[[], depth]]);
  assert.match(registry.render(), /demo_total\{name="a\\"b\\\\c\\nd"\} 1\n/);
  assert.match(registry.render(), /\ndemo_depth 3\n/);
  depth = 4;
  assert.match(registry.render(), /\ndemo_depth 4\n/);
});

test('the snapshot gives current values as plain data (histogram buckets not cumulative)', () => {
  const registry = new MetricsRegistry({ maxSeries: 10 });
  registry.histogram('demo_seconds', 'Demo.', ['model'], [1, 2]).observe(['A-1'], 1.5);
  const [metric] = registry.snapshot();
  assert.deepEqual(metric, {
    name: 'demo_seconds',
    type: 'histogram',
    help: 'Demo.',
    bounds: [1, 2],
    series: [{ labels: { model: 'A-1' }, value: 1.5, count: 1, buckets: [0, 1, 0] }],
  });
});
