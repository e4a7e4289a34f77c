/**
 * What rate limits do when the shared store cannot answer (`limits.onStoreFailure`):
 * - `closed` (default): the request is refused with a 503 in the surface's shape and `retry-after`;
 * - `local`: this process decides alone, with each limit divided by the configured instance count
 *   (`limits.instances`), so N instances together admit at most the limit; such answers carry
 *   `x-modelgate-limits: local` and the switch is logged (once per change, not per request).
 * The shared store's own breaker makes a dead store cost nothing per request once detected.
 */
import { GatewayError } from '../ir/index.ts';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import type { Bucket, BucketState, Draw, DrawResult, RateLimitStore } from './rate-limit-store.ts';

export type StoreFailureMode = 'closed' | 'local';

export interface FailoverOptions {
  mode: StoreFailureMode;
  /** Gateway processes sharing the store (instances × workers): the local share is limit ÷ this. */
  instances: number;
  onFallback: (error: unknown) => void;
}

export class FailoverRateLimitStore implements RateLimitStore {
  readonly #shared: RateLimitStore;
  readonly #local = new MemoryRateLimitStore();
  readonly #options: FailoverOptions;
  readonly #shares = new WeakMap<Bucket, Bucket>();

  constructor(shared: RateLimitStore, options: FailoverOptions) {
    this.#shared = shared;
    this.#options = options;
  }

  async draw(draws: readonly Draw[], now: number): Promise<DrawResult> {
    try {
      return await this.#shared.draw(draws, now);
    } catch (error) {
      this.#fallback(error);
      return { ...this.#local.drawNow(this.#localDraws(draws), now), local: true };
    }
  }

  async adjust(draw: Draw, now: number): Promise<void> {
    try {
      await this.#shared.adjust(draw, now);
    } catch (error) {
      await this.adjustFailed(draw, now, error);
    }
  }

  adjustFailed(draw: Draw, now: number, error: unknown): Promise<void> {
    this.#fallback(error);
    this.#local.adjustNow(this.#localDraws([draw])[0] as Draw, now);
    return Promise.resolve();
  }

  async take(draws: readonly Draw[], now: number): Promise<BucketState[]> {
    try {
      return await this.#shared.take(draws, now);
    } catch (error) {
      this.#fallback(error);
      return this.#local.take(this.#localDraws(draws), now);
    }
  }

  async peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]> {
    try {
      return await this.#shared.peek(buckets, now);
    } catch (error) {
      this.#fallback(error);
      return this.#local.peek(
        buckets.map((bucket) => this.#share(bucket)),
        now,
      );
    }
  }

  /** Closed: refuse with a 503 (rethrown as the surface's error); local: go on alone. */
  #fallback(error: unknown): void {
    if (this.#options.mode === 'closed')
      throw new GatewayError('unavailable', 'Rate limits cannot be checked right now. Try again shortly.', {
        retryAfterSeconds: 1,
        cause: error,
      });
    this.#options.onFallback(error);
  }

  #localDraws(draws: readonly Draw[]): Draw[] {
    return draws.map((draw) => ({ ...draw, bucket: this.#share(draw.bucket) }));
  }

  /** This process's share of a bucket: the limit ÷ instances (at least one unit). */
  #share(bucket: Bucket): Bucket {
    let share = this.#shares.get(bucket);
    if (share === undefined) {
      share = { ...bucket, limit: Math.max(1, Math.floor(bucket.limit / this.#options.instances)) };
      this.#shares.set(bucket, share);
    }
    return share;
  }
}
