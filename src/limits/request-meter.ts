/**
 * Admission for requests that carry no tokens to meter: count-tokens (B's and C's count
 * endpoints) and the stored-response routes (`GET`/`DELETE /v1/responses/{id}`, `input_items`).
 * Each counts as one request against the key's requests per minute on a family (count-tokens:
 * the model's; stored responses: the Responses API's own, A), never against its tokens or its
 * spend; a key whose budget is spent, or that may not use the model, is refused as `admit`
 * refuses it. Keys the config declares unlimited on the family are metered, never refused.
 */
import { AdmissionRefusal } from '../gateway/admission.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError } from '../ir/index.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { MeterQuery } from './admission-control.ts';
import { periodAccount, periodWindow } from '../keys/budget-period.ts';
import { modelDenied, overBudget, overPeriodBudget, rateLimited } from './refusals.ts';
import type { BudgetStore } from './budgets.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface MeterDependencies {
  keys: ClientKeys;
  limiter: RateLimiter;
  budgets: BudgetStore;
  /** Unix milliseconds. */
  clock: () => number;
}

/** Admits one token-free request (its rate-limit headers) or throws the `AdmissionRefusal`. */
export function createRequestMeter(
  dependencies: MeterDependencies,
): (query: MeterQuery) => Promise<ResponseHeaders> {
  const { keys, limiter, budgets, clock } = dependencies;
  return async (query) => {
    const key = keys.byId(query.clientId);
    if (key === undefined) throw new GatewayError('authentication', 'Invalid or missing API key');
    const { surface, family } = query;
    const now = clock();
    const headers: ResponseHeaders = {};
    const refuse = async (error: GatewayError): Promise<never> => {
      Object.assign(headers, surface.rateLimitHeaders(await limiter.state(key, family, now)));
      throw new AdmissionRefusal(error, headers);
    };
    if (query.model !== undefined && key.models !== undefined && !key.models.has(query.model))
      return refuse(modelDenied(surface, query.model));
    if (key.budgetUsd !== undefined) {
      const spent = budgets.spent(key.id);
      if (spent >= key.budgetUsd) {
        headers['x-should-retry'] = 'false';
        return refuse(overBudget(spent, key.budgetUsd));
      }
    }
    const period = key.periodBudget;
    if (period !== undefined) {
      const spent = budgets.spent(periodAccount(key.id, periodWindow(period.period, now)));
      if (spent >= period.usd) {
        headers['x-should-retry'] = 'false';
        return refuse(overPeriodBudget(spent, period, now));
      }
    }
    if (key.budgetUsd === undefined && period === undefined && key.unlimited.has(family)) {
      Object.assign(headers, surface.rateLimitHeaders(await limiter.charge(key, family, 0, now)));
      return headers;
    }
    const acquired = await limiter.acquire(key, family, 0, now);
    Object.assign(headers, surface.rateLimitHeaders(acquired.state));
    if (acquired.local) headers['x-modelgate-limits'] = 'local';
    if (acquired.refusal !== undefined) {
      throw new AdmissionRefusal(
        rateLimited(acquired.refusal, family, limiter.limitsFor(key, family)),
        headers,
      );
    }
    return headers;
  };
}
