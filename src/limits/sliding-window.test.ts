import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlidingWindow } from './sliding-window.ts';

const minute = 60_000;

test('entries leave the window one period after they were recorded, oldest first', () => {
  const window = new SlidingWindow(minute);
  window.push(1_000, 2, 10);
  window.push(5_000, 1, 10);
  // `evict(now - period)`: an entry at or before the cutoff has been in the window a whole period.
  assert.equal(window.evict(999), 3, 'a millisecond short of a period: all still in');
  assert.equal(window.evict(1_000), 1, 'both at 1 s left');
  assert.equal(window.at(0), 5_000);
  assert.equal(window.evict(5_000), 0);
  assert.equal(window.newest(), undefined);
});

test('a time earlier than the newest entry is recorded as the newest: the ring stays sorted', () => {
  const window = new SlidingWindow(minute);
  window.push(2_000, 1, 10);
  window.push(1_500, 1, 10);
  assert.deepEqual([window.at(0), window.at(1)], [2_000, 2_000]);
});

test('a refund takes back the admissions recorded at its time, whatever came after', () => {
  const window = new SlidingWindow(minute);
  window.push(1_000, 2, 10);
  window.push(2_000, 3, 10);
  window.push(3_000, 1, 10);
  window.remove(2, 2_000);
  assert.deepEqual(
    Array.from({ length: window.size }, (_, index) => window.at(index)),
    [1_000, 1_000, 2_000, 3_000],
  );
  window.remove(1, 2_500);
  assert.equal(window.size, 4, 'nothing was recorded at 2.5 s: nothing else goes in its place');
  window.remove(1, undefined);
  assert.equal(window.newest(), 2_000, 'an unknown time takes back the newest');
});

test('memory: at most `limit` entries, grown as admissions need, back to 8 once empty', () => {
  const limit = 10_000;
  const window = new SlidingWindow(minute);
  for (let index = 0; index < 10; index++) window.push(index, 1, limit);
  assert.equal(window.capacity, 16, 'ten admissions take a ring of 16, not 10,000');
  // A metered key (never refused) draws past its limit: only the newest `limit` are kept.
  for (let index = 0; index < 25_000; index++) window.push(1_000 + index, 1, limit);
  assert.equal(window.size, limit);
  assert.equal(window.capacity, limit, '160 KB for rpm 10,000');
  assert.equal(window.at(0), 1_000 + 15_000);
  assert.equal(window.evict(1_000_000), 0);
  assert.equal(window.capacity, 8);
});

test('the ring wraps: pushes and evictions past its end keep the order', () => {
  const window = new SlidingWindow(10);
  let time = 0;
  const expected: number[] = [];
  for (let step = 0; step < 200; step++) {
    time += 3;
    window.push(time, 1, 5);
    expected.push(time);
    window.evict(time - 10);
    while (expected.length > 0 && ((expected[0] ?? 0) <= time - 10 || expected.length > 5)) expected.shift();
    assert.deepEqual(
      Array.from({ length: window.size }, (_, index) => window.at(index)),
      expected,
    );
  }
});

test('memory: admissions in the same millisecond are one run, however many', () => {
  const limit = 1_000_000_000;
  const window = new SlidingWindow(minute);
  // 12,000 a second for a minute, as a busy key under the shared rig's load: 720,000 admissions.
  for (let index = 0; index < 720_000; index++) window.push(Math.floor(index / 12), 1, limit);
  assert.equal(window.size, 720_000);
  assert.equal(window.capacity, 65_536, 'a run per millisecond (60,000): 1 MiB, not 8 MiB');
  assert.equal(window.at(0), 0);
  assert.equal(window.at(11), 0);
  assert.equal(window.at(12), 1);
  assert.equal(window.at(719_999), 59_999);
  assert.equal(window.evict(9_999), 600_000, 'the first 10 s left');
  assert.equal(window.at(0), 10_000);
});

test('the same answers as one entry per admission, for any mix of pushes, refunds and evictions', () => {
  let seed = 7;
  const random = (below: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % below;
  };
  for (let trial = 0; trial < 200; trial++) {
    const period = 1 + random(40);
    const window = new SlidingWindow(period);
    let model: number[] = [];
    let time = 0;
    for (let step = 0; step < 150; step++) {
      time += random(3);
      const cap = 1 + random(12);
      const choice = random(10);
      if (choice < 6) {
        const count = random(4);
        window.push(time, count, cap);
        const at = Math.max(time, model.at(-1) ?? time);
        model.push(...Array.from({ length: count }, () => at));
        model = model.slice(Math.max(0, model.length - Math.max(1, cap)));
      } else if (choice < 8) {
        const count = 1 + random(3);
        const at = random(2) === 0 ? undefined : time - random(4);
        window.remove(count, at);
        if (at === undefined) model = model.slice(0, Math.max(0, model.length - count));
        else {
          const end = model.filter((entry) => entry <= at).length;
          let start = end;
          while (start > 0 && end - start < count && model[start - 1] === at) start--;
          model.splice(start, end - start);
        }
      } else {
        const cutoff = time - period;
        assert.equal(window.evict(cutoff), model.filter((entry) => entry > cutoff).length);
        model = model.filter((entry) => entry > cutoff);
      }
      assert.equal(window.size, model.length);
      assert.deepEqual(
        Array.from({ length: window.size }, (_, index) => window.at(index)),
        model,
      );
      assert.equal(window.newest(), model.at(-1));
    }
  }
});
