/** Human durations for the CLI and the admin API: `90s`, `15m`, `24h`, `30d`, `2w`. */

const unitMs: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const durationPattern = /^(\d{1,9})([smhdw])$/;

/** Milliseconds for `text`, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = durationPattern.exec(text.trim());
  if (match === null) return undefined;
  const [, amount, unit] = match;
  const factor = unit === undefined ? undefined : unitMs[unit];
  if (amount === undefined || factor === undefined) return undefined;
  const value = Number(amount) * factor;
  return value > 0 ? value : undefined;
}

/**
 * A point in time given as a duration from `now` (`30d`) or as a date (`2026-12-31`,
 * `2026-12-31T12:00:00Z`). Undefined when it is neither.
 */
export function parseMoment(text: string, now: number): number | undefined {
  const duration = parseDuration(text);
  if (duration !== undefined) return now + duration;
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) return undefined;
  const time = Date.parse(text.trim());
  return Number.isFinite(time) ? time : undefined;
}
