/**
 * Requests and tokens per minute, per client key × model family. Requests are an exact sliding
 * window (no minute holds more than the limit); tokens a continuously refilling GCRA bucket, reserved
 * before the call (prompt tokens + the request's max output) and reconciled with the real usage
 * after it. Both are drawn in one atomic step: a request takes a request and its tokens, or nothing.
 */
import type { RateLimitState } from '../surfaces/surface.ts';
import type { FamilyId } from '../ir/index.ts';
import type { Bucket, Draw, DrawResult, RateLimitStore } from './rate-limit-store.ts';

export interface FamilyLimits {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

/** What the limiter needs of a client key: its id and its own overrides. */
export interface LimitedKey {
  id: string;
  rpm: number | undefined;
  tpm: number | undefined;
}

export interface Refusal {
  dimension: 'requests' | 'tokens';
  /** Whole seconds until the same request would be admitted. */
  retryAfterSeconds: number;
  /** The request alone needs more than the per-minute limit: waiting cannot help. */
  exceedsLimit: boolean;
  /** Units the request asked for in that dimension. */
  requested: number;
}

export interface Acquisition {
  state: RateLimitState;
  /** Decided by this process alone: the shared store was unreachable (`onStoreFailure: local`). */
  local: boolean;
  /** Undefined when admitted. */
  refusal: Refusal | undefined;
  /** The store's time of the admission: what `release` names to take exactly it back. */
  at: number;
}

export interface AnyRequestWait {
  state: RateLimitState;
  /** Milliseconds until one request could be admitted; 0: now. */
  waitMs: number;
  /** The window that makes it wait. */
  dimension: Refusal['dimension'];
}

const minute = 60_000;

export class RateLimiter {
  readonly #store: RateLimitStore;
  readonly #limits: Readonly<Record<FamilyId, FamilyLimits>>;

  constructor(store: RateLimitStore, limits: Readonly<Record<FamilyId, FamilyLimits>>) {
    this.#store = store;
    this.#limits = limits;
  }

  /**
   * Takes `requests` requests (a request for n candidates counts n: it may be n upstream calls)
   * and `tokens` tokens from the key's windows for the family, or nothing.
   */
  async acquire(
    key: LimitedKey,
    family: FamilyId,
    tokens: number,
    now: number,
    requestCount = 1,
  ): Promise<Acquisition> {
    const draws = this.draws(key, family, tokens, requestCount);
    return this.acquisition(await this.#store.draw(draws, now), tokens, requestCount, now);
  }

  /** `acquire`'s answer with no promise, from a store that decides in this process; else undefined. */
  acquireNow(
    key: LimitedKey,
    family: FamilyId,
    tokens: number,
    now: number,
    requestCount = 1,
  ): Acquisition | undefined {
    if (this.#store.drawNow === undefined) return undefined;
    const result = this.#store.drawNow(this.draws(key, family, tokens, requestCount), now);
    return this.acquisition(result, tokens, requestCount, now);
  }

  /** What `acquire` draws: `requestCount` requests and `tokens` tokens from the key's windows. */
  draws(key: LimitedKey, family: FamilyId, tokens: number, requestCount = 1): Draw[] {
    const [requests, tokenBucket] = this.#buckets(key, family);
    return [
      { bucket: requests, amount: requestCount },
      { bucket: tokenBucket, amount: tokens },
    ];
  }

  /** A draw's result (from the store, or a store's one-step admission with a budget) as an acquisition. */
  acquisition(result: DrawResult, tokens: number, requestCount: number, now: number): Acquisition {
    const state = toState(result.states, now);
    const local = result.local === true;
    const at = result.at;
    if (result.allowed) return { state, local, refusal: undefined, at };
    const dimension = result.refusedBy === 0 ? 'requests' : 'tokens';
    const exceedsLimit = !Number.isFinite(result.retryAfterMs);
    return {
      state,
      local,
      at,
      refusal: {
        dimension,
        retryAfterSeconds: exceedsLimit ? minute / 1000 : Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
        exceedsLimit,
        requested: dimension === 'requests' ? requestCount : tokens,
      },
    };
  }

  /** Takes `requestCount` requests and `tokens` tokens without a check (metered, never refused). */
  async charge(
    key: LimitedKey,
    family: FamilyId,
    tokens: number,
    now: number,
    requestCount = 1,
  ): Promise<RateLimitState> {
    const [requests, tokenBucket] = this.#buckets(key, family);
    const states = await this.#store.take(
      [
        { bucket: requests, amount: requestCount },
        { bucket: tokenBucket, amount: tokens },
      ],
      now,
    );
    return toState(states, now);
  }

  /** Replaces a reservation of `reserved` tokens with the `used` ones (after the call). */
  async reconcile(
    key: LimitedKey,
    family: FamilyId,
    reserved: number,
    used: number,
    now: number,
  ): Promise<void> {
    const tokens = this.reconciliation(key, family, reserved, used);
    if (tokens !== undefined) await this.adjust(tokens, now);
  }

  /**
   * What `reconcile` adjusts (undefined when nothing): a shared store may take it in the same round
   * trip as the budget's settle.
   */
  reconciliation(key: LimitedKey, family: FamilyId, reserved: number, used: number): Draw | undefined {
    if (reserved === used) return undefined;
    const [, tokens] = this.#buckets(key, family);
    return { bucket: tokens, amount: used - reserved };
  }

  adjust(draw: Draw, now: number): Promise<void> {
    return this.#store.adjust(draw, now);
  }

  /** `adjust` made at once by a store that decides in this process: false when it has to be `adjust`. */
  adjustNow(draw: Draw, now: number): boolean {
    if (this.#store.adjustNow === undefined) return false;
    this.#store.adjustNow(draw, now);
    return true;
  }

  /** An adjustment the shared store could not make in another store's round trip: as a failed `adjust`. */
  async adjustFailed(draw: Draw, now: number, error: unknown): Promise<void> {
    if (this.#store.adjustFailed === undefined) throw error;
    await this.#store.adjustFailed(draw, now, error);
  }

  /**
   * Gives back a whole admission (a request that never went out): its `requestCount` requests
   * leave the window (those recorded at `admittedAt`, the acquisition's `at`) and its tokens go back.
   */
  async release(
    key: LimitedKey,
    family: FamilyId,
    tokens: number,
    admittedAt: number,
    now: number,
    requestCount = 1,
  ): Promise<void> {
    const [requests, tokenBucket] = this.#buckets(key, family);
    await this.#store.adjust({ bucket: requests, amount: -requestCount, at: admittedAt }, now);
    await this.#store.adjust({ bucket: tokenBucket, amount: -tokens }, now);
  }

  /**
   * How long until the key could make any request in the family (every request takes one request
   * and at least one token), with the windows' state: 0 when it could now. A positive wait is a
   * refusal whatever the request's body holds, so it can be decided before the body is read.
   */
  async waitForAny(key: LimitedKey, family: FamilyId, now: number): Promise<AnyRequestWait> {
    const states = await this.#store.peek(this.#buckets(key, family), now);
    let waitMs = 0;
    let dimension: Refusal['dimension'] = 'requests';
    states.forEach((state, index) => {
      if (state.remaining >= 1 || state.nextMs <= waitMs) return;
      waitMs = state.nextMs;
      dimension = index === 0 ? 'requests' : 'tokens';
    });
    return { state: toState(states, now), waitMs, dimension };
  }

  async state(key: LimitedKey, family: FamilyId, now: number): Promise<RateLimitState> {
    return toState(await this.#store.peek(this.#buckets(key, family), now), now);
  }

  limitsFor(key: LimitedKey, family: FamilyId): FamilyLimits {
    const defaults = this.#limits[family];
    // The configuration has limits for every registered family; an unknown id is a bug upstream of here.
    if (defaults === undefined) throw new Error(`no rate limits for family ${family}`);
    return {
      requestsPerMinute: key.rpm ?? defaults.requestsPerMinute,
      tokensPerMinute: key.tpm ?? defaults.tokensPerMinute,
    };
  }

  /** Per key object (a reloaded key is a new object: its limits may have changed), per family. */
  readonly #bucketCache = new WeakMap<LimitedKey, Partial<Record<FamilyId, [Bucket, Bucket]>>>();

  #buckets(key: LimitedKey, family: FamilyId): [Bucket, Bucket] {
    let byFamily = this.#bucketCache.get(key);
    if (byFamily === undefined) {
      byFamily = {};
      this.#bucketCache.set(key, byFamily);
    }
    let buckets = byFamily[family];
    if (buckets === undefined) {
      const limits = this.limitsFor(key, family);
      buckets = [
        {
          id: `${key.id}\u0000${family}\u0000requests`,
          owner: key.id,
          limit: limits.requestsPerMinute,
          periodMs: minute,
          kind: 'window',
        },
        {
          id: `${key.id}\u0000${family}\u0000tokens`,
          owner: key.id,
          limit: limits.tokensPerMinute,
          periodMs: minute,
          kind: 'gcra',
        },
      ];
      byFamily[family] = buckets;
    }
    return buckets;
  }
}

function toState(
  states: readonly { limit: number; remaining: number; resetMs: number }[],
  now: number,
): RateLimitState {
  const [requests, tokens] = states;
  if (requests === undefined || tokens === undefined)
    throw new Error('rate-limit store returned too few states');
  return { requests, tokens, now };
}
