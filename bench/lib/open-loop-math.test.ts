import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addedBeyondBare,
  addedOverDirect,
  dueCount,
  intendedSendMs,
  periodMs,
  requestCounts,
  summarizeLatencies,
} from './open-loop-math.ts';

describe('open-loop schedule', () => {
  it('sends request i at start + i / rate, whatever happened before it', () => {
    assert.equal(periodMs(1000), 1);
    assert.equal(intendedSendMs(100, 0, 1000), 100);
    assert.equal(intendedSendMs(100, 2500, 1000), 2600);
    assert.equal(intendedSendMs(0, 3, 3000), 1);
  });

  it('counts the requests due at a moment, the one due exactly now included', () => {
    assert.equal(dueCount(50, 49.9, 1000, 100), 0);
    assert.equal(dueCount(50, 50, 1000, 100), 1);
    assert.equal(dueCount(50, 52.999, 1000, 100), 3);
    assert.equal(dueCount(50, 53, 1000, 100), 4);
    // 3,000/s: request 3 is due at exactly 1 ms, which floats would put a hair late.
    assert.equal(dueCount(0, 1, 3000, 100), 4);
    // A stall does not lower the offered rate: everything due meanwhile is released at once.
    assert.equal(dueCount(0, 40, 1000, 100), 41);
    assert.equal(dueCount(0, 10_000, 1000, 100), 100);
  });

  it('splits a run into warm-up and measured requests', () => {
    assert.deepEqual(requestCounts(3000, 1, 5), { warmup: 3000, measured: 15_000 });
    assert.deepEqual(requestCounts(1000, 0, 2), { warmup: 0, measured: 2000 });
  });

  it('refuses a rate that is not positive', () => {
    assert.throws(() => periodMs(0), /rate must be > 0/);
  });
});

describe('open-loop latency figures', () => {
  it('takes nearest-rank percentiles of the latencies', () => {
    const latencies = Array.from({ length: 1000 }, (_, index) => 1000 - index); // 1..1000 ms, unsorted
    const summary = summarizeLatencies(latencies);
    assert.deepEqual(summary, { count: 1000, p50: 500, p90: 900, p99: 990, p999: 999, max: 1000 });
  });

  it('gives NaN percentiles for a cell with no answers', () => {
    const summary = summarizeLatencies([]);
    assert.equal(summary.count, 0);
    assert.ok(Number.isNaN(summary.p50) && Number.isNaN(summary.max));
  });

  it('pairs each rep with direct before taking the median', () => {
    // Rep 2 was slow for everyone: unpaired medians would say +1.0, the paired one says +0.2.
    const pairs = [
      { target: 1.2, direct: 1.0 },
      { target: 9.2, direct: 9.0 },
      { target: 1.3, direct: 1.1 },
    ];
    assert.ok(Math.abs(addedOverDirect(pairs) - 0.2) < 1e-9);
  });

  it("puts modelgate's added tail beside the bare proxy's, rep by rep", () => {
    const gateway = [
      { target: 5, direct: 2 },
      { target: 30, direct: 20 },
    ];
    const bare = [
      { target: 4, direct: 2 },
      { target: 29, direct: 20 },
    ];
    // Per rep: (3 − 2) and (10 − 9), median 1.
    assert.equal(addedBeyondBare(gateway, bare), 1);
    assert.ok(Number.isNaN(addedBeyondBare([], bare)));
  });
});
