/**
 * Periodic budgets: a key may cap its spend per UTC day, week (Monday to Monday, ISO) or calendar
 * month, beside its lifetime budget. A period is a window of the UTC calendar; its spend is its own
 * account in the budget stores (`periodAccount`), so a new period starts at zero wherever the
 * spend is kept, on every instance at once, with nothing to reset.
 */
export const budgetPeriods = ['daily', 'weekly', 'monthly'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

export function isBudgetPeriod(value: unknown): value is BudgetPeriod {
  return (budgetPeriods as readonly unknown[]).includes(value);
}

/** A periodic budget: so much per period. */
export interface PeriodBudget {
  period: BudgetPeriod;
  usd: number;
}

/** One period of the UTC calendar: [start, end) in Unix milliseconds. */
export interface PeriodWindow {
  period: BudgetPeriod;
  start: number;
  end: number;
  /** Names the window: `day:2026-11-27`, `week:2026-11-23` (its Monday), `month:2026-11`. */
  id: string;
}

const dayMs = 86_400_000;

/** The window of `period` that holds `now`. */
export function periodWindow(period: BudgetPeriod, now: number): PeriodWindow {
  const date = new Date(now);
  const dayStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (period === 'daily')
    return { period, start: dayStart, end: dayStart + dayMs, id: `day:${isoDate(dayStart)}` };
  if (period === 'weekly') {
    // getUTCDay: Sunday 0 … Saturday 6; weeks start on Monday.
    const start = dayStart - ((date.getUTCDay() + 6) % 7) * dayMs;
    return { period, start, end: start + 7 * dayMs, id: `week:${isoDate(start)}` };
  }
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return { period, start, end, id: `month:${isoDate(start).slice(0, 7)}` };
}

/** The budget stores' account of a key's spend in one window (a lifetime account is the key id). */
export function periodAccount(keyId: string, window: PeriodWindow): string {
  return `${keyId}/${window.id}`;
}

/** How a refusal names the period: "daily" → "day". */
export function periodNoun(period: BudgetPeriod): string {
  return period === 'daily' ? 'day' : period === 'weekly' ? 'week' : 'month';
}

function isoDate(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
