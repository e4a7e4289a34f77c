/**
 * A key's settings as the admin API takes them (`POST /admin/keys`, `PATCH /admin/keys/{key}`):
 * the body's schema and its translation to the key store's policy or changes.
 */
import { z } from 'zod';
import type { ModelResolver } from '../gateway/resolve-model.ts';
import { budgetPeriods, type PeriodBudget } from '../keys/budget-period.ts';
import type { KeyChanges, KeyPolicy, KeyRecord } from '../keys/key-store.ts';
import { parseMoment } from '../limits/durations.ts';
import { AdminError } from './admin-error.ts';

const nullableCount = z.number().int().min(1).max(1_000_000_000).nullable();

export const createSchema = z.strictObject({
  name: z.string().min(1).max(100),
  models: z.array(z.string().min(1).max(256)).max(1000).nullable().optional(),
  budget_usd: z.number().min(0).max(1e9).nullable().optional(),
  period_budget_usd: z.number().min(0).max(1e9).nullable().optional(),
  budget_period: z.enum(budgetPeriods).optional(),
  rpm: nullableCount.optional(),
  tpm: nullableCount.optional(),
  expires: z.string().min(1).max(64).nullable().optional(),
});

export const updateSchema = createSchema.partial();

type CreateInput = z.infer<typeof createSchema>;
type UpdateInput = z.infer<typeof updateSchema>;

/** What a key's settings need from the gateway: its catalog and clock. */
export interface KeyInputContext {
  models: ModelResolver;
  /** Unix milliseconds. */
  clock: () => number;
}

export function parseInput<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new AdminError(400, 'invalid_request', z.prettifyError(parsed.error).replace(/\n/g, ' '));
  return parsed.data;
}

export function toPolicy(input: CreateInput, context: KeyInputContext): KeyPolicy {
  return {
    models: input.models == null ? undefined : resolveModels(input.models, context.models),
    budgetUsd: input.budget_usd ?? undefined,
    periodBudget: periodBudgetOf(input, undefined) ?? undefined,
    rpm: input.rpm ?? undefined,
    tpm: input.tpm ?? undefined,
    expiresAt: input.expires == null ? undefined : expiry(input.expires, context.clock()),
  };
}

/**
 * A periodic budget from `period_budget_usd` and `budget_period`: both are needed, save that an
 * update may change one and keep the key's other (`current`); null clears it.
 */
function periodBudgetOf(input: UpdateInput, current: KeyRecord | undefined): PeriodBudget | null | undefined {
  const usd = input.period_budget_usd;
  if (usd === null) return null;
  if (usd === undefined && input.budget_period === undefined) return undefined;
  const amount = usd ?? current?.periodBudget?.usd;
  const period = input.budget_period ?? current?.periodBudget?.period;
  if (amount === undefined || period === undefined)
    throw new AdminError(
      400,
      'invalid_request',
      'a periodic budget needs period_budget_usd and budget_period',
    );
  return { period, usd: amount };
}

/** An update naming one half of a periodic budget: the other comes from the key as it is. */
export function halfAPeriodBudget(input: UpdateInput): boolean {
  return (input.period_budget_usd === undefined) !== (input.budget_period === undefined);
}

export function toChanges(input: UpdateInput, context: KeyInputContext, current?: KeyRecord): KeyChanges {
  const changes: KeyChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.models !== undefined)
    changes.models = input.models === null ? null : resolveModels(input.models, context.models);
  if (input.budget_usd !== undefined) changes.budgetUsd = input.budget_usd;
  const periodBudget = periodBudgetOf(input, current);
  if (periodBudget !== undefined) changes.periodBudget = periodBudget;
  if (input.rpm !== undefined) changes.rpm = input.rpm;
  if (input.tpm !== undefined) changes.tpm = input.tpm;
  if (input.expires !== undefined)
    changes.expiresAt = input.expires === null ? null : expiry(input.expires, context.clock());
  return changes;
}

/** Model names as the catalog knows them (aliases resolved); unknown names are refused. */
export function resolveModels(names: readonly string[], models: ModelResolver): string[] {
  const resolved = new Set<string>();
  for (const name of names) {
    const entry = models.resolve(name.trim());
    if (entry === undefined)
      throw new AdminError(400, 'unknown_model', `unknown model "${name.slice(0, 100)}"`);
    resolved.add(entry.name);
  }
  return [...resolved];
}

function expiry(text: string, now: number): number {
  const at = parseMoment(text, now);
  if (at === undefined)
    throw new AdminError(
      400,
      'invalid_request',
      'expires is a duration (30d, 12h) or a date (2026-12-31T00:00:00Z)',
    );
  return at;
}
