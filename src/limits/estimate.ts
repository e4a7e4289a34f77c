/**
 * What a request may cost before it is sent: prompt tokens counted with the tokenizer (images are
 * not counted: the real usage reconciles them) plus the request's max output for every candidate.
 */
import type { ModelEntry, ModelPricing } from '../config/catalog.ts';
import { promptTexts } from '../gateway/validate-request.ts';
import type { ChatRequest } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';

export interface Estimate {
  promptTokens: number;
  /** Max output × candidates. */
  maxOutputTokens: number;
  /** What the rate limiter reserves. */
  tokens: number;
  /** Every prompt token at the dearer of the input and cache-write prices, every output token paid. */
  worstCaseUsd: number;
}

/** `pricing`: the prices to assume (the dearest of the model and its fallbacks). */
export function estimateRequest(
  request: ChatRequest,
  entry: ModelEntry,
  pricing: ModelPricing = entry.pricing,
): Estimate {
  let promptTokens = 0;
  for (const text of promptTexts(request)) promptTokens += countTextTokens(text);
  const perCandidate = request.sampling.maxOutputTokens ?? entry.maxOutputTokens;
  const maxOutputTokens = perCandidate * Math.max(1, request.sampling.candidateCount ?? 1);
  const inputPrice = Math.max(pricing.inputPerMillion, pricing.cacheWritePerMillion);
  return {
    promptTokens,
    maxOutputTokens,
    tokens: promptTokens + maxOutputTokens,
    worstCaseUsd: (promptTokens * inputPrice + maxOutputTokens * pricing.outputPerMillion) / 1_000_000,
  };
}
