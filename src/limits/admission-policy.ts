/**
 * The admission policy for client keys: model restrictions, budgets, rate limits and the
 * rate-limit headers of the surface's family, then, when the request is settled, the
 * reconciliation of tokens and cost and the ledger rows. Order: model → budget → rate limits
 * (what is refused later gives back what was taken earlier). Nothing reaches an upstream
 * unless all three admit the request.
 */
import type { ModelEntry, ModelPricing } from '../config/catalog.ts';
import { AdmissionRefusal, type Admission } from '../gateway/admission.ts';
import type { ChatCall } from '../gateway/chat-call.ts';
import type { DeliveryResult } from '../gateway/delivery.ts';
import type { PreparedRequest } from '../gateway/prepare-request.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError, type FamilyId } from '../ir/index.ts';
import type { ClientKey, ClientKeys } from '../keys/client-keys.ts';
import type { Logger } from '../log/logger.ts';
import { refusalRow } from '../usage/ledger-rows.ts';
import type { LedgerSink } from '../usage/ledger.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { AdmissionControl, LimitsQuery } from './admission-control.ts';
import { periodAccount, periodWindow } from '../keys/budget-period.ts';
import { modelDenied, modelDeniedWith, overBudget, overPeriodBudget, rateLimited } from './refusals.ts';
import type { BudgetHold, BudgetStore, Reservation } from './budgets.ts';
import { estimateRequest } from './estimate.ts';
import type { Acquisition, RateLimiter } from './rate-limiter.ts';
import { createSettleRequest, logFailures, type Held } from './settle-request.ts';

export interface PolicyDependencies {
  keys: ClientKeys;
  limiter: RateLimiter;
  budgets: BudgetStore;
  ledger: LedgerSink;
  /** True when the gateway knows the model's prices (catalog or configured models). */
  isPriced: (entry: ModelEntry) => boolean;
  /** A catalog model's prices (a stream cut short is priced at the model that served it). */
  pricingOf: (model: string) => ModelPricing | undefined;
  /**
   * Whether the key's tokens per minute apply to this model: the spec's models, or any model when
   * the key or the family's `limits` section sets `tpm` (README "Rate limits": models the operator
   * adds are limited by requests per minute until a token limit is configured).
   */
  limitsTokens: (key: ClientKey, entry: ModelEntry) => boolean;
  /** The prices a budget reserves at: the dearest of the model and the fallbacks it may use. */
  pricingFor: (entry: ModelEntry) => ModelPricing;
  /** Unix milliseconds. */
  clock: () => number;
  logger: Logger;
}

/** A budget refusal, or the hold (when one was taken) and the rate limiter's answer. */
type HeldAndAcquired =
  | { over: { spentUsd: number; budgetUsd: number } }
  | { reservation: Reservation | undefined; acquired: Acquisition };

export function createAdmissionPolicy(dependencies: PolicyDependencies): AdmissionControl {
  const { keys, limiter, budgets, ledger, clock, logger } = dependencies;
  const quietly = logFailures(logger);
  const settleWith = createSettleRequest(dependencies);

  /**
   * A key the config declares unlimited on this family: its windows are metered for the headers,
   * never enforced, so nothing about them has to happen before the upstream call. The estimate and the metering run
   * once the request is on its way (`Admission.afterDispatch`); a request that never got that far
   * is not metered, and its error answer describes the windows as they are.
   */
  const meterAfterDispatch = (
    call: ChatCall,
    prepared: PreparedRequest,
    context: RequestContext,
    key: ClientKey,
  ): Admission => {
    const { entry } = prepared;
    const held: Held = { key, estimate: undefined, reservations: [], drewTokens: true };
    const afterDispatch = async (): Promise<ResponseHeaders | undefined> => {
      try {
        const estimate = await estimateRequest(prepared.request, entry, dependencies.pricingFor(entry));
        held.estimate = estimate;
        const state = await limiter.charge(
          key,
          entry.family,
          estimate.tokens,
          clock(),
          candidatesOf(prepared),
        );
        return call.surface.rateLimitHeaders(state);
      } catch (error) {
        logger.error('limits store failed', { cause: error instanceof Error ? error.message : 'unknown' });
        return undefined;
      }
    };
    return {
      headers: {},
      afterDispatch,
      settle(result: DeliveryResult) {
        settleWith(call, prepared, context, held, result);
      },
    };
  };

  /**
   * A key with a budget: its hold and the rate-limit draw. A shared store that can takes both in
   * one step (one round trip, all or nothing); otherwise the hold first, then the draw, and the
   * hold goes back when the draw fails (refused by a window: the caller gives it back).
   */
  const holdAndAcquire = async (
    hold: BudgetHold,
    key: ClientKey,
    family: FamilyId,
    tokens: number,
    now: number,
    requests: number,
  ): Promise<HeldAndAcquired> => {
    if (budgets.reserveWithDraws !== undefined) {
      const draws = limiter.draws(key, family, tokens, requests);
      const { budget, draw } = await budgets.reserveWithDraws(hold, draws);
      if (!budget.admitted) return { over: budget };
      const acquired = limiter.acquisition(draw, tokens, requests, now);
      // Refused by a window: the script took no hold either, so there is nothing to give back.
      return { reservation: acquired.refusal === undefined ? budget.reservation : undefined, acquired };
    }
    const reserved = await budgets.reserve(hold.keyId, hold.budgetUsd, hold.worstCaseUsd);
    if (!reserved.admitted) return { over: reserved };
    const acquired = await limiter.acquire(key, family, tokens, now, requests).catch((error: unknown) => {
      // The shared store could not answer (a 503): the budget hold goes back at once.
      quietly(budgets.release(reserved.reservation));
      throw error;
    });
    return { reservation: reserved.reservation, acquired };
  };

  return {
    async admit(call: ChatCall, prepared: PreparedRequest, context: RequestContext) {
      const now = clock();
      const { entry } = prepared;
      const family = entry.family;
      // The request's model, for what is told of it afterwards (metrics, spans), refused or not.
      context.model = entry.name;
      // The answer's headers, refused or not: the rate-limit state, and why not to retry.
      const headers: ResponseHeaders = {};
      const refuse = (error: GatewayError): never => {
        ledger.append(refusalRow(call, prepared, context, error, clock()));
        throw new AdmissionRefusal(error, headers);
      };
      const key = keys.byId(call.clientId);
      // Revoked between authentication and here (a reload in between).
      if (key === undefined) return refuse(new GatewayError('authentication', 'Invalid or missing API key'));
      const report = async (): Promise<void> => {
        Object.assign(headers, call.surface.rateLimitHeaders(await limiter.state(key, family, now)));
      };

      if (key.models !== undefined && !key.models.has(entry.name)) {
        await report();
        return refuse(modelDenied(call.surface, entry.name));
      }
      if (key.budgetUsd === undefined && key.periodBudget === undefined && key.unlimited.has(family))
        return meterAfterDispatch(call, prepared, context, key);
      // Counting stops once the request needs more than the key's tokens per minute: refused anyway.
      const drewTokens = dependencies.limitsTokens(key, entry);
      const tokensPerMinute = drewTokens
        ? limiter.limitsFor(key, family).tokensPerMinute
        : Number.POSITIVE_INFINITY;
      const estimating = estimateRequest(
        prepared.request,
        entry,
        dependencies.pricingFor(entry),
        tokensPerMinute,
      );
      const estimate = estimating instanceof Promise ? await estimating : estimating;
      const tokens = drewTokens ? estimate.tokens : 0;
      const reservations: Reservation[] = [];
      let acquired: Acquisition;
      const requests = candidatesOf(prepared);
      const giveBack = (): void => {
        for (const reservation of reservations.splice(0)) quietly(budgets.release(reservation));
      };
      if (key.budgetUsd !== undefined || key.periodBudget !== undefined) {
        if (!dependencies.isPriced(entry)) {
          await report();
          return refuse(
            modelDeniedWith(
              call.surface,
              `${entry.name} has no known prices, so a key with a budget cannot call it`,
            ),
          );
        }
        // The period's own account first (a hold of its own), then the lifetime hold with the draws:
        // each check-and-hold is atomic, and a later refusal gives the earlier holds back.
        const period = key.periodBudget;
        if (period !== undefined) {
          const window = periodWindow(period.period, now);
          const account = periodAccount(key.id, window);
          // Kept two days past its period, for the holds and settles still under way at its end.
          const forgetAt = window.end + 2 * 86_400_000;
          const reserved = await budgets.reserve(account, period.usd, estimate.worstCaseUsd, forgetAt);
          if (!reserved.admitted) {
            await report();
            // Hours away, as a rule: the SDKs should not sit in a retry loop (retry-after says when).
            headers['x-should-retry'] = 'false';
            return refuse(overPeriodBudget(reserved.spentUsd, period, now));
          }
          reservations.push(reserved.reservation);
        }
        try {
          if (key.budgetUsd === undefined)
            acquired =
              limiter.acquireNow(key, family, tokens, now, requests) ??
              (await limiter.acquire(key, family, tokens, now, requests));
          else {
            const hold = { keyId: key.id, budgetUsd: key.budgetUsd, worstCaseUsd: estimate.worstCaseUsd };
            const held = await holdAndAcquire(hold, key, family, tokens, now, requests);
            if ('over' in held) {
              giveBack();
              await report();
              // A spent budget does not come back by waiting: tells the SDKs not to retry.
              headers['x-should-retry'] = 'false';
              return refuse(overBudget(held.over.spentUsd, held.over.budgetUsd));
            }
            if (held.reservation !== undefined) reservations.push(held.reservation);
            acquired = held.acquired;
          }
        } catch (error) {
          giveBack();
          throw error;
        }
      } else
        acquired =
          limiter.acquireNow(key, family, tokens, now, requests) ??
          (await limiter.acquire(key, family, tokens, now, requests));
      Object.assign(headers, call.surface.rateLimitHeaders(acquired.state));
      // Decided by this process alone while the shared store was unreachable (`onStoreFailure: local`).
      if (acquired.local) headers['x-modelgate-limits'] = 'local';
      if (acquired.refusal !== undefined) {
        giveBack();
        // Waiting cannot help a request larger than the window: the SDKs are told not to retry.
        if (acquired.refusal.exceedsLimit) headers['x-should-retry'] = 'false';
        return refuse(rateLimited(acquired.refusal, family, limiter.limitsFor(key, family)));
      }

      return {
        headers,
        afterDispatch: undefined,
        settle(result: DeliveryResult) {
          settleWith(call, prepared, context, { key, estimate, reservations, drewTokens }, result);
        },
      };
    },

    async describe(query: LimitsQuery) {
      const key = keys.byId(query.clientId);
      if (key === undefined) return undefined;
      return query.surface.rateLimitHeaders(await limiter.state(key, query.family, clock()));
    },
  };
}

/** `n` candidates count as n requests: a family without native `n` makes n upstream calls. */
function candidatesOf(prepared: PreparedRequest): number {
  return Math.max(1, prepared.request.sampling.candidateCount ?? 1);
}
