/** The time ranges the dashboard offers and the rollup period each one reads. */
import { hourMs, minuteMs } from '../usage/rollups.ts';

export interface Range {
  name: string;
  /** First bucket (inclusive), aligned to the period. */
  since: number;
  /** Last bucket (inclusive). */
  last: number;
  period: number;
  /** One chart point per step (a multiple of the period: 24 hours of minutes make 288 points). */
  step: number;
}

const ranges: Readonly<Record<string, { span: number; period: number; step: number }>> = {
  '1h': { span: hourMs, period: minuteMs, step: minuteMs },
  '24h': { span: 24 * hourMs, period: minuteMs, step: hourMs },
  '7d': { span: 7 * 24 * hourMs, period: hourMs, step: hourMs },
  '30d': { span: 30 * 24 * hourMs, period: hourMs, step: 3 * hourMs },
};

export const rangeNames = Object.keys(ranges);

/** The range named by `?range=` (default 24h); undefined for a name not offered. */
export function parseRange(name: string | null, now: number): Range | undefined {
  const chosen = ranges[name ?? '24h'];
  if (chosen === undefined) return undefined;
  // The last point ends with the current bucket; the first starts a whole span of steps before.
  const last = now - (now % chosen.period);
  const end = last + chosen.period;
  return {
    name: name ?? '24h',
    since: end - chosen.span,
    last,
    period: chosen.period,
    step: chosen.step,
  };
}

/** Every point's start, oldest first (charts get every point, gaps included). */
export function pointsOf(range: Range): number[] {
  const points: number[] = [];
  for (let point = range.since; point <= range.last; point += range.step) points.push(point);
  return points;
}

/** The index of the point a rollup bucket falls in. */
export function pointIndex(range: Range, bucket: number): number {
  return Math.floor((bucket - range.since) / range.step);
}

/** Unix milliseconds of the current UTC day's and month's start. */
export function dayAndMonthStart(now: number): { day: number; month: number } {
  const date = new Date(now);
  return {
    day: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()),
    month: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
  };
}

/** A stretch of one rollup period: buckets `from` to `to`, both included. */
export interface WindowPart {
  period: number;
  from: number;
  to: number;
}

/**
 * The range as few rollup rows as cover it exactly: whole hours from the hour rollup, the minutes
 * before the first and after the last whole hour from the minute rollup. Totals over 24 hours
 * then read 24 hour rows and at most 119 minute rows per value instead of 1,440.
 */
export function windowParts(range: Range): WindowPart[] {
  const end = range.last + range.period;
  if (range.period === hourMs || end - range.since < 2 * hourMs)
    return [{ period: range.period, from: range.since, to: range.last }];
  const firstHour = Math.ceil(range.since / hourMs) * hourMs;
  const lastHour = Math.floor(end / hourMs) * hourMs;
  const parts: WindowPart[] = [];
  if (firstHour > range.since) parts.push({ period: minuteMs, from: range.since, to: firstHour - minuteMs });
  parts.push({ period: hourMs, from: firstHour, to: lastHour - hourMs });
  if (lastHour < end) parts.push({ period: minuteMs, from: lastHour, to: range.last });
  return parts;
}

/**
 * The range as the charts draw it: by hour once it is longer than an hour (a day of minutes would
 * be 1,440 points a line, and as many latency histograms to merge), whole hour buckets from the
 * one the range starts in. Cards and tables keep the exact range (`windowParts`).
 */
export function seriesRange(range: Range): Range {
  if (range.period === hourMs || range.last + range.period - range.since <= hourMs) return range;
  const since = range.since - (range.since % hourMs);
  const last = range.last - (range.last % hourMs);
  return { ...range, since, last, period: hourMs, step: Math.max(range.step, hourMs) };
}
