/**
 * The end of an admitted request: what admission held (estimated tokens, budget holds) replaced by
 * what was delivered, and the ledger rows written. Off the request's path: a store that cannot
 * answer is logged (or, for the rate limits, meets `onStoreFailure`), never the client's problem.
 * With a shared store that can, the key's own spend and its token reconciliation are one round
 * trip (`BudgetStore.settleWithAdjust`).
 */
import type { ModelPricing } from '../config/catalog.ts';
import type { ChatCall } from '../gateway/chat-call.ts';
import type { DeliveryResult } from '../gateway/delivery.ts';
import type { PreparedRequest } from '../gateway/prepare-request.ts';
import type { ClientKey } from '../keys/client-keys.ts';
import type { Logger } from '../log/logger.ts';
import { accountDelivery, ledgerRows } from '../usage/ledger-rows.ts';
import type { LedgerSink } from '../usage/ledger.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { BudgetStore, Reservation } from './budgets.ts';
import type { Estimate } from './estimate.ts';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * What an admitted request holds until it settles: estimated tokens taken, budget reserved (the
 * lifetime hold, its key's id, and the periodic one, its period's account).
 */
export interface Held {
  key: ClientKey;
  /** Undefined while nothing was metered. */
  estimate: Estimate | undefined;
  reservations: Reservation[];
  /** The estimate's tokens were drawn from the key's token window (reconciled at the end). */
  drewTokens: boolean;
}

export interface SettleDependencies {
  limiter: RateLimiter;
  budgets: BudgetStore;
  ledger: LedgerSink;
  /** A catalog model's prices (a stream cut short is priced at the model that served it). */
  pricingOf: (model: string) => ModelPricing | undefined;
  clock: () => number;
  logger: Logger;
}

export type SettleRequest = (
  call: ChatCall,
  prepared: PreparedRequest,
  context: RequestContext,
  held: Held,
  result: DeliveryResult,
) => void;

/** A store call off the request's path: its failure is logged. */
export function logFailures(logger: Logger): (promise: Promise<void>) => void {
  return (promise) => {
    promise.catch((error: unknown) =>
      logger.error('limits store failed', { cause: error instanceof Error ? error.message : 'unknown' }),
    );
  };
}

export function createSettleRequest(dependencies: SettleDependencies): SettleRequest {
  const { limiter, budgets, ledger, clock } = dependencies;
  const quietly = logFailures(dependencies.logger);
  return (call, prepared, context, held, result) => {
    const { key, estimate, reservations } = held;
    const accounted = accountDelivery(
      call,
      context,
      result.delivered ? result : undefined,
      estimate?.promptTokens ?? 0,
      dependencies.pricingOf,
    );
    const usage = accounted.usage;
    const used = usage === undefined ? 0 : usage.inputTokens + usage.outputTokens;
    const costUsd = accounted.costUsd;
    const tokens =
      estimate !== undefined && held.drewTokens
        ? limiter.reconciliation(key, prepared.entry.family, estimate.tokens, used)
        : undefined;
    // The key's own account: its lifetime hold, or (none) the lifetime spend kept for every key.
    // A periodic account lives under its own hash tag: always a settle of its own.
    const own = reservations.find((reservation) => reservation.keyId === key.id);
    for (const reservation of reservations)
      if (reservation !== own) quietly(budgets.settle(reservation, costUsd));
    const settleTogether = budgets.settleWithAdjust;
    if (tokens !== undefined && settleTogether !== undefined && (own !== undefined || costUsd > 0))
      quietly(
        settleTogether({ keyId: key.id, reservation: own, costUsd }, tokens, (error) => {
          quietly(limiter.adjustFailed(tokens, clock(), error));
        }),
      );
    else {
      if (tokens !== undefined) {
        const now = clock();
        if (!limiter.adjustNow(tokens, now)) quietly(limiter.adjust(tokens, now));
      }
      if (own !== undefined) quietly(budgets.settle(own, costUsd));
      else budgets.record(key.id, costUsd);
    }
    for (const row of ledgerRows(call, prepared, context, result, accounted)) ledger.append(row);
  };
}
