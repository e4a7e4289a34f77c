import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSnapshots } from './exposition.ts';
import { SnapshotMerge } from './merge-snapshots.ts';
import { MetricsRegistry, type MetricSnapshot } from './registry.ts';

/** A worker's registry: the same metric set every worker defines. */
function worker(maxSeries = 10) {
  const registry = new MetricsRegistry({ maxSeries });
  return {
    registry,
    tokens: registry.counter('demo_tokens_total', 'Tokens.', ['model']),
    duration: registry.histogram('demo_seconds', 'Duration.', ['model'], [0.1, 1]),
    inFlight: (value: number) => registry.gauge('demo_in_flight', 'In flight.', [], () => [[[], value]]),
  };
}

function values(metrics: readonly MetricSnapshot[], name: string): Record<string, unknown> {
  const metric = metrics.find((entry) => entry.name === name);
  return Object.fromEntries(
    (metric?.series ?? []).map((series) => [
      Object.values(series.labels).join(','),
      series.count === undefined
        ? series.value
        : { sum: series.value, count: series.count, buckets: series.buckets },
    ]),
  );
}

test('the workers’ series with the same labels are summed: counters, histograms bucket by bucket, gauges', () => {
  const one = worker();
  const two = worker();
  one.inFlight(2);
  two.inFlight(3);
  one.tokens.add(['A-1'], 10);
  two.tokens.add(['A-1'], 5);
  two.tokens.add(['B-1'], 7);
  one.duration.observe(['A-1'], 0.0625);
  two.duration.observe(['A-1'], 0.5);
  two.duration.observe(['A-1'], 4);
  const { metrics, folded } = new SnapshotMerge(10).merge([one.registry.snapshot(), two.registry.snapshot()]);
  assert.deepEqual(values(metrics, 'demo_tokens_total'), { 'A-1': 15, 'B-1': 7 });
  assert.deepEqual(values(metrics, 'demo_seconds'), { 'A-1': { sum: 4.5625, count: 3, buckets: [1, 1, 1] } });
  assert.deepEqual(values(metrics, 'demo_in_flight'), { '': 5 });
  assert.equal(folded.size, 0);
  // The merged text is what one registry that saw all of it would render.
  const whole = worker();
  whole.inFlight(5);
  whole.tokens.add(['A-1'], 15);
  whole.tokens.add(['B-1'], 7);
  for (const value of [0.0625, 0.5, 4]) whole.duration.observe(['A-1'], value);
  const out: string[] = [];
  renderSnapshots(metrics, out);
  assert.equal(out.join(''), whole.registry.render());
});

test('the cap holds after the merge: label sets past it go to the overflow series, for good', () => {
  const merge = new SnapshotMerge(2);
  const one = worker(2);
  const two = worker(2);
  one.tokens.add(['A-1'], 1);
  one.tokens.add(['A-2'], 2);
  one.tokens.add(['A-3'], 4); // the worker's own overflow
  two.tokens.add(['B-1'], 8);
  two.tokens.add(['A-1'], 16);
  const first = merge.merge([one.registry.snapshot(), two.registry.snapshot()]);
  assert.deepEqual(values(first.metrics, 'demo_tokens_total'), { 'A-1': 17, 'A-2': 2, overflow: 12 });
  assert.deepEqual([...first.folded], [['demo_tokens_total', 1]]);
  // Next scrape, the other worker first: B-1 still goes to overflow (A-1 and A-2 were admitted).
  two.tokens.add(['B-1'], 1);
  const second = merge.merge([two.registry.snapshot(), one.registry.snapshot()]);
  assert.deepEqual(values(second.metrics, 'demo_tokens_total'), { 'A-1': 17, 'A-2': 2, overflow: 13 });
  const total = (merged: typeof first): number =>
    Object.values(values(merged.metrics, 'demo_tokens_total')).reduce<number>(
      (sum, value) => sum + Number(value),
      0,
    );
  assert.equal(total(second), 1 + 2 + 4 + 8 + 16 + 1, 'nothing lost, only folded');
  // Each worker's own drop count is summed, unchanged.
  assert.deepEqual(values(second.metrics, 'modelgate_metrics_series_dropped_total'), {
    demo_tokens_total: 1,
  });
});
