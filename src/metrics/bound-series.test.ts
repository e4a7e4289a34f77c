import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundCounter, BoundHistogram, BoundSeriesCache } from './bound-series.ts';
import { MetricsRegistry } from './registry.ts';

test('a bound series renders exactly as the same observations made with labels', () => {
  const bound = new MetricsRegistry({ maxSeries: 10 });
  const labelled = new MetricsRegistry({ maxSeries: 10 });
  const boundTokens = bound.counter('demo_tokens_total', 'Tokens.', ['type', 'model']);
  const boundDuration = bound.histogram('demo_duration_seconds', 'Duration.', ['model'], [0.1, 1]);
  const tokens = labelled.counter('demo_tokens_total', 'Tokens.', ['type', 'model']);
  const duration = labelled.histogram('demo_duration_seconds', 'Duration.', ['model'], [0.1, 1]);
  const input = new BoundCounter(boundTokens, ['input', 'A-1']);
  const output = new BoundCounter(boundTokens, ['output', 'A-1']);
  const reasoning = new BoundCounter(boundTokens, ['reasoning', 'A-1']);
  const timed = new BoundHistogram(boundDuration, ['A-1']);
  for (const [amount, seconds] of [
    [3, 0.05],
    [0, 0.5],
    [7, -1],
    [2, Number.NaN],
  ] as const) {
    input.add(amount);
    output.add(amount * 2);
    reasoning.add(0);
    timed.observe(seconds);
    tokens.add(['input', 'A-1'], amount);
    tokens.add(['output', 'A-1'], amount * 2);
    tokens.add(['reasoning', 'A-1'], 0);
    duration.observe(['A-1'], seconds);
  }
  assert.equal(bound.render(), labelled.render());
  assert.doesNotMatch(bound.render(), /reasoning/, 'a series bound and never observed does not appear');
});

test('past the cap a bound series keeps nothing: each observation goes to the overflow series, counted', () => {
  const registry = new MetricsRegistry({ maxSeries: 1 });
  const tokens = registry.counter('demo_tokens_total', 'Tokens.', ['key']);
  const first = new BoundCounter(tokens, ['k1']);
  const second = new BoundCounter(tokens, ['k2']);
  first.add(5);
  second.add(2);
  second.add(3);
  const text = registry.render();
  assert.match(text, /\ndemo_tokens_total\{key="k1"\} 5\n/);
  assert.match(text, /\ndemo_tokens_total\{key="overflow"\} 5\n/);
  assert.match(text, /\nmodelgate_metrics_series_dropped_total\{metric="demo_tokens_total"\} 2\n/);
});

test('the cache keeps at most its limit of label tuples and still answers past it', () => {
  const cache = new BoundSeriesCache<{ key: string }>(2);
  let made = 0;
  const make = (key: string) => () => {
    made++;
    return { key };
  };
  assert.equal(cache.get(make('a|x'), 'a', 'x'), cache.get(make('a|x'), 'a', 'x'));
  assert.equal(cache.get(make('a|y'), 'a', 'y').key, 'a|y');
  assert.equal(made, 2);
  assert.equal(cache.get(make('b|x'), 'b', 'x').key, 'b|x');
  assert.equal(cache.get(make('b|x'), 'b', 'x').key, 'b|x');
  assert.equal(made, 4, 'past the limit a tuple is made for the one call');
  assert.equal(cache.get(make('a|y'), 'a', 'y').key, 'a|y');
  assert.equal(made, 4);
});
