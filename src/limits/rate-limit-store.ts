/**
 * Rate-limit buckets with the generic cell rate algorithm (GCRA): a bucket of `limit` units per
 * `periodMs` refills continuously and holds at most `limit`; its whole state is one number, the
 * theoretical arrival time (TAT). A draw of n units moves the TAT by n × period / limit and is
 * allowed while the TAT stays within one period of now. Giving units back moves it back, which
 * makes "reserve the estimate, reconcile to the real usage" exact.
 *
 * The store interface is asynchronous so a shared store can implement it for several gateway
 * instances: in Redis, `draw` is one Lua script (read every TAT, check all, write all with a TTL
 * of one period: all or nothing), `adjust` another. The in-memory store below is exact because
 * its check-and-consume runs synchronously: nothing can interleave.
 */

export interface Bucket {
  /** Unique per client key × family × dimension. */
  id: string;
  /** The client key it belongs to: a shared store keeps one client's buckets together. */
  owner?: string;
  /** Units per period (e.g. requests per minute). */
  limit: number;
  periodMs: number;
}

export interface Draw {
  bucket: Bucket;
  amount: number;
}

export interface BucketState {
  limit: number;
  /** Whole units that could be drawn now. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface DrawResult {
  allowed: boolean;
  /** Each bucket after the draw; when refused, as it is (nothing was taken). */
  states: BucketState[];
  /** When refused: the first bucket that lacked room. */
  refusedBy: number | undefined;
  /** When refused: milliseconds until the same draw would succeed; Infinity when it never can. */
  retryAfterMs: number;
  /** Decided by this process alone (the shared store was unreachable and the config says `local`). */
  local?: boolean;
}

export interface RateLimitStore {
  /** Takes every draw or, when any bucket lacks room, none: one atomic step. */
  draw(draws: readonly Draw[], now: number): Promise<DrawResult>;
  /** Adds `amount` units (negative: gives them back) without a check: reconciles an estimate. */
  adjust(draw: Draw, now: number): Promise<void>;
  /** Takes every draw without a check (metered, never refused) and returns the states after. */
  take(draws: readonly Draw[], now: number): Promise<BucketState[]>;
  /** The buckets' states without drawing. */
  peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]>;
}

/** Float slack for TAT sums (e.g. 0.6 ms per token). */
const epsilon = 1e-6;
/** Sweep idle buckets when the map grows past this. */
const sweepAt = 50_000;

export class MemoryRateLimitStore implements RateLimitStore {
  /** bucket id → TAT (unix ms). A missing entry is a full bucket. */
  readonly #tat = new Map<string, number>();

  draw(draws: readonly Draw[], now: number): Promise<DrawResult> {
    return Promise.resolve(this.drawNow(draws, now));
  }

  adjust(draw: Draw, now: number): Promise<void> {
    this.adjustNow(draw, now);
    return Promise.resolve();
  }

  take(draws: readonly Draw[], now: number): Promise<BucketState[]> {
    return Promise.resolve(
      draws.map((draw) => {
        this.adjustNow(draw, now);
        return stateOf(draw.bucket, this.#current(draw.bucket, now), now);
      }),
    );
  }

  peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]> {
    return Promise.resolve(buckets.map((bucket) => stateOf(bucket, this.#current(bucket, now), now)));
  }

  /** The synchronous core of `draw` (exposed for tests and benchmarks). */
  drawNow(draws: readonly Draw[], now: number): DrawResult {
    const next: number[] = [];
    for (let index = 0; index < draws.length; index++) {
      const { bucket, amount } = draws[index] as Draw;
      const tat = this.#current(bucket, now) + amount * interval(bucket);
      if (tat - now > bucket.periodMs + epsilon) {
        const alone = amount * interval(bucket) > bucket.periodMs + epsilon;
        return {
          allowed: false,
          states: draws.map((draw) => stateOf(draw.bucket, this.#current(draw.bucket, now), now)),
          refusedBy: index,
          retryAfterMs: alone ? Number.POSITIVE_INFINITY : tat - bucket.periodMs - now,
        };
      }
      next.push(tat);
    }
    if (this.#tat.size > sweepAt) this.#sweep(now);
    return {
      allowed: true,
      states: draws.map((draw, index) => {
        const tat = next[index] ?? now;
        this.#tat.set(draw.bucket.id, tat);
        return stateOf(draw.bucket, tat, now);
      }),
      refusedBy: undefined,
      retryAfterMs: 0,
    };
  }

  adjustNow({ bucket, amount }: Draw, now: number): void {
    const tat = this.#current(bucket, now) + amount * interval(bucket);
    if (tat <= now) this.#tat.delete(bucket.id);
    else this.#tat.set(bucket.id, tat);
  }

  #current(bucket: Bucket, now: number): number {
    const tat = this.#tat.get(bucket.id);
    return tat === undefined || tat < now ? now : tat;
  }

  #sweep(now: number): void {
    for (const [id, tat] of this.#tat) if (tat <= now) this.#tat.delete(id);
  }
}

function interval(bucket: Bucket): number {
  return bucket.periodMs / bucket.limit;
}

function stateOf(bucket: Bucket, tat: number, now: number): BucketState {
  const used = (tat - now) / interval(bucket);
  return {
    limit: bucket.limit,
    remaining: Math.max(0, Math.floor(bucket.limit - used + epsilon)),
    resetMs: Math.max(0, tat - now),
  };
}
