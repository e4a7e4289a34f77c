/**
 * How the simulated model honours structured output and reasoning, so a client's structured-output
 * and reasoning code runs offline end to end: a JSON answer (sampled from the schema, like tool
 * arguments) and a deterministic number of thinking tokens, counted as output tokens.
 */
import type { ChatRequest, ReasoningEffort, ResponseFormat } from '../ir/index.ts';
import { sampleArguments } from './schema-sample.ts';

const effortTokens: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 16,
  low: 48,
  medium: 96,
  high: 192,
  xhigh: 256,
  max: 320,
};

/** Tokens thought per budget token when only a budget is known (B, C). */
const budgetShare = 1 / 16;

/**
 * Thinking tokens for this request: by effort, else a sixteenth of the budget (at most the
 * `high` amount); never more than half the output cap, so the answer keeps room.
 */
export function reasoningTokens(request: ChatRequest): number {
  const { effort, budgetTokens } = request.reasoning ?? {};
  let tokens = 0;
  if (effort !== undefined) tokens = effortTokens[effort];
  else if (budgetTokens !== undefined)
    tokens = Math.min(effortTokens.high, Math.ceil(budgetTokens * budgetShare));
  if (budgetTokens !== undefined) tokens = Math.min(tokens, budgetTokens);
  const cap = request.sampling.maxOutputTokens;
  return cap === undefined ? tokens : Math.min(tokens, Math.floor(cap / 2));
}

/** The JSON text of a structured answer: a sample of the schema, or an object holding the lead. */
export function structuredText(format: ResponseFormat, lead: string): string {
  if (format.type === 'json') return JSON.stringify({ answer: lead });
  return JSON.stringify(sampleArguments(format.schema));
}
