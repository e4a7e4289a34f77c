/**
 * Budgets in Redis, shared by every instance: a reservation is a hold with an expiry (a crashed
 * instance's holds free themselves), checked and taken in one script on the server; settling is
 * idempotent (a marker per hold), so a retried settle charges once. Money is micro-USD integers:
 * holds round up, costs round to the nearest micro-dollar. Budgets always fail closed: when
 * Redis cannot answer, a key with a budget is refused with a 503.
 */
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../ir/index.ts';
import type {
  BudgetHold,
  BudgetStore,
  HoldAndDraw,
  KeySettlement,
  Reservation,
  ReserveResult,
} from '../budgets.ts';
import type { Draw } from '../rate-limit-store.ts';
import type { RedisConnection } from './redis-connection.ts';
import type { RedisRateLimitStore } from './redis-rate-limit-store.ts';
import { SettleBatches } from './settle-batches.ts';

/** How long a settlement marker guards against a replay (a settle is retried at once, if ever). */
const settledMarkerMs = 10 * 60 * 1000;

export interface RedisBudgetOptions {
  prefix: string;
  /** A hold's lifetime: the longest a request can wait for its answer to start, plus a margin. */
  holdTtlMs: number;
  /** Lifetime spend per key id from the ledger: where Redis starts when it has no figure yet. */
  initialSpend: ReadonlyMap<string, number>;
  onError: (error: unknown) => void;
  /**
   * The rate-limit store on the same Redis: with it, a request with a budget is admitted in one
   * round trip (`lua/admit.lua`: the hold and the buckets together), and a request is settled in
   * one (`lua/settle-tokens.lua`: the key's spend and its token reconciliation). A client's budget
   * and buckets share its hash tag, so one script may touch them all on a Redis Cluster too.
   */
  buckets?: RedisRateLimitStore;
}

export class RedisBudgets implements BudgetStore {
  readonly #redis: RedisConnection;
  readonly #options: RedisBudgetOptions;
  /** Last spend Redis reported per key (for `spent`). */
  readonly #spent = new Map<string, number>();

  readonly reserveWithDraws?: (hold: BudgetHold, draws: readonly Draw[]) => Promise<HoldAndDraw>;
  readonly settleWithAdjust?: (
    settlement: KeySettlement,
    tokens: Draw,
    tokensFailed: (error: unknown) => void,
  ) => Promise<void>;

  /** Sends the settlements gathered for this turn now (at shutdown, before the connection closes). */
  readonly flush: () => Promise<void>;

  constructor(redis: RedisConnection, options: RedisBudgetOptions) {
    this.#redis = redis;
    this.#options = options;
    const buckets = options.buckets;
    if (buckets !== undefined)
      this.reserveWithDraws = async (hold, draws) => {
        const { keys, args } = buckets.bucketArguments(draws);
        const id = randomUUID();
        const reply = await this.#hold('modelgateAdmit', hold, id, keys, args);
        return { budget: this.#reserved(hold, id, reply), draw: buckets.drawResult(draws, reply, 3) };
      };
    // Settlements without a hold, one call per key and turn (`settle-batches.ts`).
    const unheld = new SettleBatches(async (keyId, microUsd, tokens) => {
      if (buckets === undefined) return;
      const { keys, args } = buckets.bucketArguments([tokens]);
      try {
        await this.#settle(keyId, randomUUID(), microUsd / 1e6, 'modelgateSettleTokens', keys, args);
      } catch (error) {
        // As `record`: reported once per outage, never the client's problem.
        this.#options.onError(error);
        throw error;
      }
    });
    this.flush = () => unheld.flush();
    if (buckets !== undefined)
      this.settleWithAdjust = async ({ keyId, reservation, costUsd }, tokens, tokensFailed) => {
        if (reservation === undefined) return unheld.add({ keyId, costUsd, tokens, tokensFailed });
        const { keys, args } = buckets.bucketArguments([tokens]);
        const holdId = reservation.holdId ?? randomUUID();
        try {
          await this.#settle(keyId, holdId, costUsd, 'modelgateSettleTokens', keys, args);
        } catch (error) {
          tokensFailed(error);
          // As `settle`: rejects, the caller logs it.
          throw error;
        }
      };
  }

  async reserve(
    keyId: string,
    budgetUsd: number,
    worstCaseUsd: number,
    forgetAt?: number,
  ): Promise<ReserveResult> {
    const hold = { keyId, budgetUsd, worstCaseUsd };
    const id = randomUUID();
    // `lua/reserve.lua`'s ARGV[6]: the account's keys expire then (0: never).
    const reply = await this.#hold('modelgateReserve', hold, id, [], [forgetAt ?? 0]);
    return this.#reserved(hold, id, reply);
  }

  /** Runs a hold script (budget keys first, then `keys`; the hold's arguments, then `args`). */
  async #hold(
    which: 'modelgateAdmit' | 'modelgateReserve',
    { keyId, budgetUsd, worstCaseUsd }: BudgetHold,
    id: string,
    keys: readonly string[],
    args: readonly number[],
  ): Promise<number[]> {
    const holdArgs = [Math.round(budgetUsd * 1e6), this.#amount(worstCaseUsd), id];
    try {
      const reply = await this.#redis.run(
        which,
        [...this.#keys(keyId, id).slice(0, 3), ...keys],
        [...holdArgs, this.#options.holdTtlMs, this.#seed(keyId), ...args],
      );
      if (!Array.isArray(reply)) throw new Error('unexpected reply from the budget script');
      return reply as number[];
    } catch (error) {
      throw new GatewayError('unavailable', 'Budgets cannot be checked right now. Try again shortly.', {
        retryAfterSeconds: 1,
        cause: error,
      });
    }
  }

  /** A hold script's reply (admitted, spent, held) as the reservation's result. */
  #reserved({ keyId, budgetUsd, worstCaseUsd }: BudgetHold, id: string, reply: number[]): ReserveResult {
    const [admitted = 0, spent = 0] = reply;
    this.#spent.set(keyId, spent / 1e6);
    if (admitted !== 1) return { admitted: false, spentUsd: spent / 1e6, budgetUsd };
    return {
      admitted: true,
      reservation: { keyId, amountUsd: this.#amount(worstCaseUsd) / 1e6, holdId: id },
    };
  }

  /** Holds round up to the micro-dollar. */
  #amount(worstCaseUsd: number): number {
    return Math.ceil(worstCaseUsd * 1e6);
  }

  settle(reservation: Reservation, costUsd: number): Promise<void> {
    return this.#settle(reservation.keyId, reservation.holdId ?? randomUUID(), costUsd);
  }

  release(reservation: Reservation): Promise<void> {
    return this.#settle(reservation.keyId, reservation.holdId ?? randomUUID(), 0);
  }

  record(keyId: string, costUsd: number): void {
    if (costUsd > 0) this.#settle(keyId, randomUUID(), costUsd).catch(this.#options.onError);
  }

  spent(keyId: string): number {
    return this.#spent.get(keyId) ?? this.#options.initialSpend.get(keyId) ?? 0;
  }

  /**
   * Off the request's path; retried once (the marker makes a replay charge nothing, and change
   * nothing else the script does). `keys` and `args` follow the settlement's own.
   */
  async #settle(
    keyId: string,
    holdId: string,
    costUsd: number,
    which: 'modelgateSettle' | 'modelgateSettleTokens' = 'modelgateSettle',
    keys: readonly string[] = [],
    args: readonly number[] = [],
  ): Promise<void> {
    const allKeys = [...this.#keys(keyId, holdId), ...keys];
    const allArgs = [holdId, Math.round(costUsd * 1e6), settledMarkerMs, this.#seed(keyId), ...args];
    try {
      await this.#redis.run(which, allKeys, allArgs);
    } catch {
      await this.#redis.run(which, allKeys, allArgs);
    }
  }

  #seed(keyId: string): number {
    return Math.round((this.#options.initialSpend.get(keyId) ?? 0) * 1e6);
  }

  /** One hash tag per client key: every key a script touches is in one slot. */
  #keys(keyId: string, holdId: string): string[] {
    const base = `${this.#options.prefix}{${keyId}}:budget`;
    return [base, `${base}:holds`, `${base}:amounts`, `${base}:settled:${holdId}`];
  }
}
