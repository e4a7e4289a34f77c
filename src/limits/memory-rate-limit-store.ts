/**
 * The rate-limit store of one process: exact because each check-and-consume runs synchronously
 * (nothing can interleave). The rules of both bucket kinds are `rate-limit-store.ts`'s; the Redis
 * store's script keeps the same ones, so both give the same decisions for the same trace.
 */
import type { Bucket, BucketState, Draw, DrawResult, RateLimitStore } from './rate-limit-store.ts';
import { SlidingWindow } from './sliding-window.ts';

/** Float slack for TAT sums (e.g. 0.6 ms per token). */
const epsilon = 1e-6;
/** Sweep idle buckets when there are more than this (and twice as many as the last sweep kept). */
const sweepAt = 50_000;

export class MemoryRateLimitStore implements RateLimitStore {
  /** `gcra` bucket id → TAT (unix ms). A missing entry is a full bucket. */
  readonly #tat = new Map<string, number>();
  /** `window` bucket id → its admissions of the last period. A missing entry is an empty window. */
  readonly #windows = new Map<string, SlidingWindow>();
  #nextSweep = sweepAt;

  /** Buckets held (for tests: idle ones are swept). */
  get size(): number {
    return this.#tat.size + this.#windows.size;
  }

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
        return this.#state(draw.bucket, now);
      }),
    );
  }

  peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]> {
    return Promise.resolve(buckets.map((bucket) => this.#state(bucket, now)));
  }

  /** The synchronous core of `draw` (exposed for tests and benchmarks). */
  drawNow(draws: readonly Draw[], now: number): DrawResult {
    for (let index = 0; index < draws.length; index++) {
      const { bucket, amount } = draws[index] as Draw;
      const wait = this.#wait(bucket, amount, now);
      if (wait > 0)
        return {
          allowed: false,
          states: draws.map((draw) => this.#state(draw.bucket, now)),
          refusedBy: index,
          retryAfterMs: wait,
          at: now,
        };
    }
    if (this.#tat.size + this.#windows.size > this.#nextSweep) this.#sweep(now);
    const at = this.#recordingTime(draws, now);
    return {
      allowed: true,
      states: draws.map((draw) => {
        this.#apply(draw, now, at);
        return this.#state(draw.bucket, now);
      }),
      refusedBy: undefined,
      retryAfterMs: 0,
      at,
    };
  }

  adjustNow(draw: Draw, now: number): void {
    this.#apply(draw, now, this.#recordingTime([draw], now));
  }

  /**
   * When the draws' admissions are recorded: now, or a window's newest entry if that is later (the
   * caller read its clock before an await): windows stay sorted, an admission never leaves early,
   * and the one time recorded is the one a refund names. The Redis script does the same.
   */
  #recordingTime(draws: readonly Draw[], now: number): number {
    let at = now;
    for (const { bucket, amount } of draws)
      if (bucket.kind === 'window' && amount > 0)
        at = Math.max(at, this.#windows.get(bucket.id)?.newest() ?? at);
    return at;
  }

  #apply(draw: Draw, now: number, at: number): void {
    const { bucket, amount } = draw;
    if (bucket.kind === 'window') {
      if (amount > 0) this.#window(bucket, now, true)?.push(at, amount, bucket.limit);
      else if (amount < 0) this.#window(bucket, now, false)?.remove(-amount, draw.at);
      return;
    }
    const tat = this.#current(bucket, now) + amount * interval(bucket);
    if (tat <= now) this.#tat.delete(bucket.id);
    else this.#tat.set(bucket.id, tat);
  }

  /** Milliseconds until `amount` units fit (0: now; Infinity: never, more than the limit). */
  #wait(bucket: Bucket, amount: number, now: number): number {
    if (amount <= 0) return 0;
    if (bucket.kind === 'window') {
      if (amount > bucket.limit) return Number.POSITIVE_INFINITY;
      const window = this.#window(bucket, now, false);
      const size = window?.size ?? 0;
      if (window === undefined || size + amount <= bucket.limit) return 0;
      // Admitted once enough of the oldest admissions left the window.
      return window.at(size + amount - bucket.limit - 1) + bucket.periodMs - now;
    }
    const tat = this.#current(bucket, now) + amount * interval(bucket);
    if (tat - now <= bucket.periodMs + epsilon) return 0;
    const alone = amount * interval(bucket) > bucket.periodMs + epsilon;
    return alone ? Number.POSITIVE_INFINITY : tat - bucket.periodMs - now;
  }

  #state(bucket: Bucket, now: number): BucketState {
    if (bucket.kind === 'window') return windowState(bucket, this.#window(bucket, now, false), now);
    return gcraState(bucket, this.#current(bucket, now), now);
  }

  /** The bucket's window with what left it dropped; made when `create`, else undefined while empty. */
  #window(bucket: Bucket, now: number, create: boolean): SlidingWindow | undefined {
    let window = this.#windows.get(bucket.id);
    if (window === undefined) {
      if (!create) return undefined;
      window = new SlidingWindow(bucket.periodMs);
      this.#windows.set(bucket.id, window);
      return window;
    }
    if (window.evict(now - bucket.periodMs) === 0 && !create) {
      this.#windows.delete(bucket.id);
      return undefined;
    }
    return window;
  }

  #current(bucket: Bucket, now: number): number {
    const tat = this.#tat.get(bucket.id);
    return tat === undefined || tat < now ? now : tat;
  }

  /**
   * Drops the buckets nobody used for a period: a full GCRA bucket, an empty window. The next sweep
   * waits until there are twice as many as this one kept, so busy keys never make every draw sweep.
   */
  #sweep(now: number): void {
    for (const [id, tat] of this.#tat) if (tat <= now) this.#tat.delete(id);
    for (const [id, window] of this.#windows) {
      if (window.evict(now - window.periodMs) === 0) this.#windows.delete(id);
    }
    this.#nextSweep = Math.max(sweepAt, 2 * (this.#tat.size + this.#windows.size));
  }
}
function interval(bucket: Bucket): number {
  return bucket.periodMs / bucket.limit;
}

function gcraState(bucket: Bucket, tat: number, now: number): BucketState {
  const used = (tat - now) / interval(bucket);
  return {
    limit: bucket.limit,
    remaining: Math.max(0, Math.floor(bucket.limit - used + epsilon)),
    resetMs: Math.max(0, tat - now),
    // One unit fits once the TAT is within a period less one interval.
    nextMs: Math.max(0, tat + interval(bucket) - bucket.periodMs - now),
  };
}

function windowState(bucket: Bucket, window: SlidingWindow | undefined, now: number): BucketState {
  const size = window?.size ?? 0;
  if (window === undefined || size === 0)
    return { limit: bucket.limit, remaining: bucket.limit, resetMs: 0, nextMs: 0 };
  return {
    limit: bucket.limit,
    remaining: Math.max(0, bucket.limit - size),
    resetMs: (window.newest() ?? now) + bucket.periodMs - now,
    // Full: one more fits once the admission `limit` back from the newest left the window.
    nextMs: size < bucket.limit ? 0 : window.at(size - bucket.limit) + bucket.periodMs - now,
  };
}
