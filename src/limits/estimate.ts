/**
 * What a request may cost before it is sent: prompt tokens counted with the tokenizer (images are
 * not counted: the real usage reconciles them) plus the request's max output for every candidate.
 * The count is bounded (tokenizer/prompt-tokens.ts): past `stopAbove` prompt tokens it stops, as
 * the request is refused anyway; past the work cap the rest is estimated from its bytes.
 */
import type { ModelEntry, ModelPricing } from '../config/catalog.ts';
import { promptTokensOf } from '../gateway/validate-request.ts';
import type { ChatRequest } from '../ir/index.ts';

export interface Estimate {
  promptTokens: number;
  /** Max output × candidates. */
  maxOutputTokens: number;
  /** What the rate limiter reserves. */
  tokens: number;
  /** Every prompt token at the dearer of the input and cache-write prices, every output token paid. */
  worstCaseUsd: number;
}

/** The max output of all candidates together. */
export function maxOutputOf(request: ChatRequest, entry: ModelEntry): number {
  const perCandidate = request.sampling.maxOutputTokens ?? entry.maxOutputTokens;
  return perCandidate * Math.max(1, request.sampling.candidateCount ?? 1);
}

/**
 * `pricing`: the prices to assume (the dearest of the model and its fallbacks). `stopAbove`: a
 * total (prompt + output) beyond which the request is refused whatever the exact figure.
 */
export function estimateRequest(
  request: ChatRequest,
  entry: ModelEntry,
  pricing: ModelPricing = entry.pricing,
  stopAbove: number = Number.POSITIVE_INFINITY,
): Estimate | Promise<Estimate> {
  const maxOutputTokens = maxOutputOf(request, entry);
  const prompt = promptTokensOf(request);
  const bounds = prompt.bounds();
  // Refused on the bytes alone: the lower bound is all the refusal needs. Otherwise the count, exact
  // for ordinary prompts; cut short (refused anyway) or past the work cap, its estimate.
  if (bounds.lower + maxOutputTokens > stopAbove) return estimateOf(bounds.lower, maxOutputTokens, pricing);
  const counted = prompt.countNow(stopAbove - maxOutputTokens);
  // Most prompts are counted at once: no promise and no async frame for them.
  if (counted !== undefined) return estimateOf(counted.tokens, maxOutputTokens, pricing);
  return prompt
    .count(stopAbove - maxOutputTokens)
    .then((known) => estimateOf(known.tokens, maxOutputTokens, pricing));
}

function estimateOf(promptTokens: number, maxOutputTokens: number, pricing: ModelPricing): Estimate {
  const inputPrice = Math.max(pricing.inputPerMillion, pricing.cacheWritePerMillion);
  return {
    promptTokens,
    maxOutputTokens,
    tokens: promptTokens + maxOutputTokens,
    worstCaseUsd: (promptTokens * inputPrice + maxOutputTokens * pricing.outputPerMillion) / 1_000_000,
  };
}
