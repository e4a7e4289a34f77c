/**
 * Reasoning effort ↔ thinking budget, for the families whose knob is a token budget (B
 * `thinking.budget_tokens`, C `thinkingConfig.thinkingBudget`). A budget is a share of the
 * request's output cap, because thinking tokens are output tokens: the answer must keep room.
 */
import { invalidRequest, reasoningEfforts, type ReasoningEffort } from '../../ir/index.ts';

/** The share of the output cap each effort may think with. */
const capShare: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1 / 16,
  low: 1 / 8,
  medium: 1 / 4,
  high: 1 / 2,
  xhigh: 5 / 8,
  max: 3 / 4,
};

/** B's smallest thinking budget (a smaller `budget_tokens` is a 400 upstream). */
export const minThinkingBudget = 1_024;

/**
 * The cap an effort's share is taken of when the request has none (C does not require one):
 * 32,768 tokens, the largest budget C's thinking models take.
 */
export const referenceOutputCap = 32_768;

/**
 * The budget for `effort` under an output cap: the effort's share of the cap, at least
 * `minThinkingBudget`, and always below the cap. `undefined` when the cap leaves no room to think
 * (at most `minThinkingBudget` tokens) or the effort is `none`.
 */
export function budgetForEffort(effort: ReasoningEffort, outputCap: number): number | undefined {
  if (effort === 'none' || outputCap <= minThinkingBudget) return undefined;
  const share = Math.floor(outputCap * capShare[effort]);
  return Math.min(Math.max(share, minThinkingBudget), outputCap - 1);
}

const effortSet: ReadonlySet<string> = new Set(reasoningEfforts);

function isEffort(value: unknown): value is ReasoningEffort {
  return typeof value === 'string' && effortSet.has(value);
}

/** A `reasoning_effort` / `reasoning.effort` value, checked (a bad one is a 400 naming the field). */
export function readEffort(value: unknown, path: string): ReasoningEffort | undefined {
  if (value === undefined || value === null) return undefined;
  if (isEffort(value)) return value;
  throw invalidRequest(`${path}: expected one of ${reasoningEfforts.map((e) => `"${e}"`).join(', ')}`, path);
}
