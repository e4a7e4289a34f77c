/**
 * Budgets in Redis, shared by every instance: a reservation is a hold with an expiry (a crashed
 * instance's holds free themselves), checked and taken in one script on the server; settling is
 * idempotent (a marker per hold), so a retried settle charges once. Money is micro-USD integers:
 * holds round up, costs round to the nearest micro-dollar. Budgets always fail closed: when
 * Redis cannot answer, a key with a budget is refused with a 503.
 */
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../ir/index.ts';
import type { BudgetStore, Reservation, ReserveResult } from '../budgets.ts';
import { type RedisConnection, script } from './redis-connection.ts';
import { reserveScript, settleScript } from './scripts.ts';

const reserve = script(reserveScript);
const settle = script(settleScript);

/** How long a settlement marker guards against a replay (a settle is retried at once, if ever). */
const settledMarkerMs = 10 * 60 * 1000;

export interface RedisBudgetOptions {
  prefix: string;
  /** A hold's lifetime: the longest a request can wait for its answer to start, plus a margin. */
  holdTtlMs: number;
  /** Lifetime spend per key id from the ledger: where Redis starts when it has no figure yet. */
  initialSpend: ReadonlyMap<string, number>;
  onError: (error: unknown) => void;
}

export class RedisBudgets implements BudgetStore {
  readonly #redis: RedisConnection;
  readonly #options: RedisBudgetOptions;
  /** Last spend Redis reported per key (for `spent`). */
  readonly #spent = new Map<string, number>();

  constructor(redis: RedisConnection, options: RedisBudgetOptions) {
    this.#redis = redis;
    this.#options = options;
  }

  async reserve(keyId: string, budgetUsd: number, worstCaseUsd: number): Promise<ReserveResult> {
    const id = randomUUID();
    const amount = Math.ceil(worstCaseUsd * 1e6);
    let reply: unknown;
    try {
      reply = await this.#redis.run(reserve, this.#keys(keyId, id).slice(0, 3), [
        Math.round(budgetUsd * 1e6),
        amount,
        id,
        this.#options.holdTtlMs,
        this.#seed(keyId),
      ]);
    } catch (error) {
      throw new GatewayError('unavailable', 'Budgets cannot be checked right now. Try again shortly.', {
        retryAfterSeconds: 1,
        cause: error,
      });
    }
    const [admitted, spent] = reply as [number, number, number];
    this.#spent.set(keyId, spent / 1e6);
    if (admitted !== 1) return { admitted: false, spentUsd: spent / 1e6, budgetUsd };
    return { admitted: true, reservation: { keyId, amountUsd: amount / 1e6, holdId: id } };
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

  /** Off the request's path; retried once (the marker makes a replay charge nothing). */
  async #settle(keyId: string, holdId: string, costUsd: number): Promise<void> {
    const args = [holdId, Math.round(costUsd * 1e6), settledMarkerMs, this.#seed(keyId)];
    try {
      await this.#redis.run(settle, this.#keys(keyId, holdId), args);
    } catch {
      await this.#redis.run(settle, this.#keys(keyId, holdId), args);
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
