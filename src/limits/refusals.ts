/**
 * Why admission refuses a request, as the client reads it: a model the key may not use, a rate
 * limit, the lifetime budget (only the operator can raise it) or a periodic one, named with its
 * period and when it resets (also as `retry-after`). Money in significant digits
 * (`usage/money.ts`): a small budget reads as itself.
 */
import { GatewayError } from '../ir/index.ts';
import { periodNoun, periodWindow, type PeriodBudget } from '../keys/budget-period.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { formatUsd } from '../usage/money.ts';
import type { Refusal } from './rate-limiter.ts';

export function overBudget(spentUsd: number, budgetUsd: number): GatewayError {
  return new GatewayError(
    'quota',
    `This API key has used its budget: ${formatUsd(spentUsd)} spent of ${formatUsd(budgetUsd)}. Ask the operator to raise it.`,
  );
}

/** The period's spend is at its budget: refused until the period ends (UTC). */
export function overPeriodBudget(spentUsd: number, budget: PeriodBudget, now: number): GatewayError {
  const { end } = periodWindow(budget.period, now);
  const seconds = Math.max(1, Math.ceil((end - now) / 1000));
  return new GatewayError(
    'quota',
    `This API key has used its ${budget.period} budget: ${formatUsd(spentUsd)} spent of ${formatUsd(budget.usd)} this ${periodNoun(budget.period)} (UTC). It resets at ${new Date(end).toISOString()}; try again in ${seconds}s.`,
    { retryAfterSeconds: seconds },
  );
}

/** A key not allowed a model: the family's permission error, or model-not-found where it has none. */
export function modelDenied(surface: SurfaceCodec, model: string): GatewayError {
  return modelDeniedWith(surface, `This API key is not allowed to use the model \`${model}\``);
}

export function modelDeniedWith(surface: SurfaceCodec, message: string): GatewayError {
  return surface.capabilities.permissionError
    ? new GatewayError('permission', message)
    : new GatewayError('not_found', message, { param: 'model' });
}

export function rateLimited(
  refusal: Refusal,
  family: string,
  limits: { requestsPerMinute: number; tokensPerMinute: number },
): GatewayError {
  const limit = refusal.dimension === 'requests' ? limits.requestsPerMinute : limits.tokensPerMinute;
  const message = !refusal.exceedsLimit
    ? `Rate limit reached for ${refusal.dimension} per minute on the ${family} family: limit ${limit}, requested ${refusal.requested}. Try again in ${refusal.retryAfterSeconds}s.`
    : refusal.dimension === 'requests'
      ? `This request asks for ${refusal.requested} candidates (n), and each counts as a request: more than this key's limit of ${limit} requests per minute for the ${family} family. Lower n.`
      : `This request needs ${refusal.requested} tokens (prompt + max output), more than this key's limit of ${limit} tokens per minute for the ${family} family, so waiting cannot help. Lower max tokens or shorten the prompt, or ask the operator for a higher limit.`;
  // No retry-after for tokens that can never fit: a client that honours it would only loop (too
  // many candidates keep theirs: \`x-should-retry: false\` tells the SDKs either way).
  const hopeless = refusal.exceedsLimit && refusal.dimension === 'tokens';
  return new GatewayError(
    'rate_limited',
    message,
    hopeless ? {} : { retryAfterSeconds: refusal.retryAfterSeconds },
  );
}
