import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodAccount, periodWindow } from './budget-period.ts';

const at = (iso: string): number => Date.parse(iso);

test('a day runs from UTC midnight to the next', () => {
  const window = periodWindow('daily', at('2026-11-27T23:59:59.999Z'));
  assert.equal(window.start, at('2026-11-27T00:00:00Z'));
  assert.equal(window.end, at('2026-11-28T00:00:00Z'));
  assert.equal(window.id, 'day:2026-11-27');
  assert.equal(periodWindow('daily', at('2026-11-28T00:00:00Z')).id, 'day:2026-11-28');
});

test('a week runs Monday to Monday (UTC), across a month and a year', () => {
  // 2026-11-27 is a Friday; 2026-11-23 its Monday.
  assert.equal(periodWindow('weekly', at('2026-11-27T12:00:00Z')).id, 'week:2026-11-23');
  assert.equal(periodWindow('weekly', at('2026-11-23T00:00:00Z')).id, 'week:2026-11-23');
  assert.equal(periodWindow('weekly', at('2026-11-22T23:59:59Z')).id, 'week:2026-11-16');
  const sunday = periodWindow('weekly', at('2027-01-03T10:00:00Z'));
  assert.equal(sunday.id, 'week:2026-12-28');
  assert.equal(sunday.end, at('2027-01-04T00:00:00Z'));
});

test('a month runs from its first to the next first, short months and leap years too', () => {
  const february = periodWindow('monthly', at('2028-02-29T18:00:00Z'));
  assert.equal(february.id, 'month:2028-02');
  assert.equal(february.start, at('2028-02-01T00:00:00Z'));
  assert.equal(february.end, at('2028-03-01T00:00:00Z'));
  const december = periodWindow('monthly', at('2026-12-31T23:59:59Z'));
  assert.equal(december.end, at('2027-01-01T00:00:00Z'));
});

test('a key has one account per window: the next window starts a new one', () => {
  const today = periodAccount('k1', periodWindow('daily', at('2026-11-27T23:59:00Z')));
  const tomorrow = periodAccount('k1', periodWindow('daily', at('2026-11-28T00:00:00Z')));
  assert.equal(today, 'k1/day:2026-11-27');
  assert.notEqual(today, tomorrow);
});
