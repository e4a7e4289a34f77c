/**
 * Spend budgets per client key. A request reserves its worst-case cost (prompt + max output at
 * catalog prices) before the call and settles to the real cost after it. A request is admitted
 * while the key's committed spend (spent + outstanding reservations) is below its budget, so
 * however many requests run at once, spend can pass the budget by at most one request's worst
 * case: the last one admitted.
 *
 * Asynchronous like the rate-limit store, so a shared store can back it later; the in-memory
 * store is exact because each check-and-reserve runs synchronously.
 */
import type { Draw, DrawResult } from './rate-limit-store.ts';

export interface Reservation {
  keyId: string;
  amountUsd: number;
  /** A shared store's hold (settled once, expires on its own). */
  holdId?: string;
}

export type ReserveResult =
  { admitted: true; reservation: Reservation } | { admitted: false; spentUsd: number; budgetUsd: number };

/** A request's hold on its key's budget. */
export interface BudgetHold {
  keyId: string;
  budgetUsd: number;
  worstCaseUsd: number;
}

export interface HoldAndDraw {
  budget: ReserveResult;
  /** When the budget refused, nothing was drawn either: the buckets as they are. */
  draw: DrawResult;
}

/** A key's own account after its request: its hold settled, or (no hold) its spend recorded. */
export interface KeySettlement {
  keyId: string;
  reservation: Reservation | undefined;
  costUsd: number;
}

export interface BudgetStore {
  /**
   * Reserves `worstCaseUsd` for the account (a key's id, or its period's account) when its
   * committed spend is below `budgetUsd`. `forgetAt` (Unix ms): a periodic account is of no use
   * after it, and the store may drop it then.
   */
  reserve(keyId: string, budgetUsd: number, worstCaseUsd: number, forgetAt?: number): Promise<ReserveResult>;
  /**
   * A shared store's one-step admission: the hold and the rate-limit `draws` checked and taken
   * together in one round trip, or nothing taken. Absent in memory, where reserving and drawing
   * run back to back in one process and nothing can come between them.
   */
  reserveWithDraws?: (hold: BudgetHold, draws: readonly Draw[]) => Promise<HoldAndDraw>;
  /**
   * A shared store's one-step settle: the key's own account (`settle` its hold, or `record`
   * without one) and the token reconciliation (`tokens`, a rate-limit adjustment on the same
   * store) in one round trip, both or neither. When the store cannot answer, `tokensFailed` is told
   * first (the rate-limit store's failure policy applies to the adjustment), then the account fails
   * as its own call would: a hold's settle rejects, a record is reported and resolves. Absent in
   * memory, where the two are calls in one process.
   */
  settleWithAdjust?: (
    settlement: KeySettlement,
    tokens: Draw,
    tokensFailed: (error: unknown) => void,
  ) => Promise<void>;
  /** Replaces a reservation with what the request really cost (0 when nothing was billed). */
  settle(reservation: Reservation, costUsd: number): Promise<void>;
  /** Gives a reservation back unused (the request was refused after reserving). */
  release(reservation: Reservation): Promise<void>;
  /** Records spend that had no reservation (keys without a budget). */
  record(keyId: string, costUsd: number): void;
  /** Spent so far (settled requests only). */
  spent(keyId: string): number;
}

export class MemoryBudgets implements BudgetStore {
  readonly #spent: Map<string, number>;
  readonly #reserved = new Map<string, number>();
  /** Periodic accounts and when they may go (swept at most once a minute). */
  readonly #forgetAt = new Map<string, number>();
  readonly #clock: () => number;
  #nextSweep = 0;

  /** `initialSpend`: spend per account (key ids, period accounts) from the store. */
  constructor(initialSpend: ReadonlyMap<string, number> = new Map(), clock: () => number = Date.now) {
    this.#spent = new Map(initialSpend);
    this.#clock = clock;
  }

  reserve(keyId: string, budgetUsd: number, worstCaseUsd: number, forgetAt?: number): Promise<ReserveResult> {
    if (forgetAt !== undefined) {
      this.#forgetAt.set(keyId, forgetAt);
      this.#sweep();
    }
    const spent = this.spent(keyId);
    const reserved = this.#reserved.get(keyId) ?? 0;
    if (spent + reserved >= budgetUsd)
      return Promise.resolve({ admitted: false, spentUsd: spent, budgetUsd });
    this.#reserved.set(keyId, reserved + worstCaseUsd);
    return Promise.resolve({ admitted: true, reservation: { keyId, amountUsd: worstCaseUsd } });
  }

  settle(reservation: Reservation, costUsd: number): Promise<void> {
    this.#unreserve(reservation);
    this.record(reservation.keyId, costUsd);
    return Promise.resolve();
  }

  release(reservation: Reservation): Promise<void> {
    this.#unreserve(reservation);
    return Promise.resolve();
  }

  record(keyId: string, costUsd: number): void {
    if (costUsd > 0) this.#spent.set(keyId, this.spent(keyId) + costUsd);
  }

  spent(keyId: string): number {
    return this.#spent.get(keyId) ?? 0;
  }

  /** Outstanding reservations (for tests). */
  reserved(keyId: string): number {
    return this.#reserved.get(keyId) ?? 0;
  }

  /** Drops the periodic accounts past their time: a long-running process keeps no old periods. */
  #sweep(): void {
    const now = this.#clock();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 60_000;
    for (const [account, at] of this.#forgetAt)
      if (at <= now) {
        this.#forgetAt.delete(account);
        this.#spent.delete(account);
        this.#reserved.delete(account);
      }
  }

  #unreserve({ keyId, amountUsd }: Reservation): void {
    const left = (this.#reserved.get(keyId) ?? 0) - amountUsd;
    // Float sums drift: anything within a nano-dollar of zero is zero.
    if (left <= 1e-9) this.#reserved.delete(keyId);
    else this.#reserved.set(keyId, left);
  }
}
