/**
 * Leases on the shared buckets: an instance admits most requests without a Redis round trip, and
 * no window ever admits past its limit, across instances.
 *
 * A draw that finds no usable lease goes to Redis (`lua/lease.lua`): the draw is checked there as
 * always, and when admitted the script may add a lease — more units of each bucket, taken from the
 * shared budget like any admission, at most 1/`share` of the room left (so leases shrink as a
 * window fills, and near the limit none is granted: every admission goes to Redis one by one, as
 * before). The following draws of the same buckets come out of the lease, in this process, until
 * it runs short or its life ends. What the lease took is recorded in Redis as of the end of its
 * life (window entries carry that time, a GCRA level is the one it will have then), and it is used
 * only before then, so the shared record never says less than what was really admitted, at any
 * time: exact, however many instances lease at once.
 *
 * A lease's unused units go back (one script, `take` with negative amounts) when it is replaced,
 * when its life ends, and at `close`. A process that dies holding one gives nothing back: its
 * units come back on their own, a window's when its entries leave the window (a period after the
 * lease's end), tokens as the bucket refills (within a period after it). A Redis error while a
 * lease is held changes nothing for the lease (its units were taken); the next draw that needs
 * Redis fails as any draw does, and a refund that fails is reported and left to that expiry.
 *
 * Only draws are leased, and a `peek` is answered from a live lease; `adjust` and `take` go to
 * Redis as they are. A refund of a leased admission names the lease's recording time
 * (`DrawResult.at`), so it removes one of its entries.
 */
import type { Bucket, BucketState, Draw, DrawResult, RateLimitStore } from '../rate-limit-store.ts';
import type { RedisRateLimitStore } from './redis-rate-limit-store.ts';

export interface LeaseOptions {
  /** How long a lease may be used (ms): what it takes is recorded this far ahead. */
  lifeMs: number;
  /** The most requests one lease holds (its tokens: that many times the draw's). */
  maxRequests: number;
  /** A lease takes at most 1/share of the room a bucket has left. */
  share: number;
  /** A lease's unused units could not be given back (they come back on their own). */
  onRefundFailed: (error: unknown) => void;
}

interface Lease {
  buckets: readonly Bucket[];
  /** Units left per bucket. */
  left: number[];
  /** The Redis time its admissions are recorded at: what a refund names. */
  at: number;
  /** `performance.now()` when it was granted, and after which it is not used (its request's sending + its life). */
  grantedAt: number;
  until: number;
  /** The buckets as Redis told them when the lease was taken (the lease counted as taken). */
  states: readonly BucketState[];
}

export class BucketLeases implements RateLimitStore {
  readonly #redis: RedisRateLimitStore;
  readonly #options: LeaseOptions;
  /** The lease per first bucket (a client key × family's request window). */
  readonly #leases = new Map<Bucket, Lease>();
  /** The round trip under way per first bucket: the other draws wait for its lease. */
  readonly #pending = new Map<Bucket, Promise<unknown>>();
  /** Refunds under way (`close` waits for them). */
  readonly #refunding = new Set<Promise<void>>();
  /** Per first bucket, when its last draw came and the mean gap between draws (ms). */
  readonly #pace = new WeakMap<Bucket, { last: number; gapMs: number }>();
  /** Buckets whose last answer granted no lease (near a limit): draws go to Redis side by side. */
  readonly #oneByOne = new WeakSet<Bucket>();

  constructor(redis: RedisRateLimitStore, options: LeaseOptions) {
    this.#redis = redis;
    this.#options = options;
  }

  async draw(draws: readonly Draw[], now: number): Promise<DrawResult> {
    const first = draws[0]?.bucket;
    if (first === undefined || !draws.every(({ amount, at }) => amount >= 0 && at === undefined))
      return this.#redis.draw(draws, now);
    this.#paced(first);
    for (;;) {
      const local = this.#fromLease(first, draws);
      if (local !== undefined) return local;
      const pending = this.#pending.get(first);
      if (pending === undefined || this.#oneByOne.has(first)) break;
      await pending;
    }
    const renewal = this.#renew(first, draws);
    const settled = renewal.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.set(first, settled);
    try {
      return await renewal;
    } finally {
      if (this.#pending.get(first) === settled) this.#pending.delete(first);
    }
  }

  adjust(draw: Draw, now: number): Promise<void> {
    return this.#redis.adjust(draw, now);
  }

  take(draws: readonly Draw[], now: number): Promise<BucketState[]> {
    return this.#redis.take(draws, now);
  }

  /**
   * While this process holds a live lease on these buckets, their state as the lease knows it (the
   * header screen's look before the body costs no round trip then); otherwise Redis's.
   */
  peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]> {
    const first = buckets[0];
    const lease = first === undefined ? undefined : this.#leases.get(first);
    const clock = performance.now();
    if (
      lease !== undefined &&
      clock < lease.until &&
      lease.buckets.length === buckets.length &&
      buckets.every((bucket, index) => lease.buckets[index] === bucket)
    )
      return Promise.resolve(leaseStates(lease, clock - lease.grantedAt));
    return this.#redis.peek(buckets, now);
  }

  /** Gives every lease's unused units back (at shutdown, before the connection closes). */
  async close(): Promise<void> {
    const leases = [...this.#leases.values()];
    this.#leases.clear();
    await Promise.all([...leases.map((lease) => this.#giveBack(lease)), ...this.#refunding]);
  }

  /** Leases held now (for tests). */
  get held(): number {
    return this.#leases.size;
  }

  /** The draw taken from this process's lease, when one covers it; undefined otherwise. */
  #fromLease(first: Bucket, draws: readonly Draw[]): DrawResult | undefined {
    const lease = this.#leases.get(first);
    if (lease === undefined || lease.buckets.length !== draws.length) return undefined;
    const clock = performance.now();
    if (clock >= lease.until) {
      this.#end(first, lease);
      return undefined;
    }
    for (let index = 0; index < draws.length; index++) {
      const draw = draws[index] as Draw;
      if (draw.bucket !== lease.buckets[index] || draw.amount > (lease.left[index] ?? 0)) return undefined;
    }
    draws.forEach((draw, index) => (lease.left[index] = (lease.left[index] ?? 0) - draw.amount));
    return {
      allowed: true,
      states: leaseStates(lease, clock - lease.grantedAt),
      refusedBy: undefined,
      retryAfterMs: 0,
      at: lease.at,
    };
  }

  async #renew(first: Bucket, draws: readonly Draw[]): Promise<DrawResult> {
    const old = this.#leases.get(first);
    if (old !== undefined) this.#end(first, old);
    // As many requests as the key's pace brings in a lease's life; none when that is under two (a
    // lease would go mostly unused and cost a refund): then the draw alone, as without leases.
    const pace = this.#pace.get(first);
    const expected = pace === undefined ? 0 : Math.floor(this.#options.lifeMs / Math.max(pace.gapMs, 0.01));
    if (expected < 2) return this.#redis.draw(draws, Date.now());
    const requests = Math.min(this.#options.maxRequests, expected);
    const wanted = draws.map(({ bucket, amount }) =>
      bucket.kind === 'window' ? requests * Math.max(1, amount) : requests * amount,
    );
    const { lifeMs, share } = this.#options;
    // The lease ends its life after this moment: the script ran later, and recorded what the lease
    // takes as of its own time plus the life, so every use comes before that time.
    const sentAt = performance.now();
    const { result, extras } = await this.#redis.lease(draws, wanted, lifeMs, share);
    if (!result.allowed || !extras.some((extra) => extra > 0)) {
      this.#oneByOne.add(first);
      return result;
    }
    this.#oneByOne.delete(first);
    const grantedAt = performance.now();
    const lease: Lease = {
      buckets: draws.map(({ bucket }) => bucket),
      left: extras,
      at: result.at,
      grantedAt,
      until: sentAt + lifeMs,
      states: result.states,
    };
    const replaced = this.#leases.get(first);
    if (replaced !== undefined) this.#end(first, replaced);
    this.#leases.set(first, lease);
    // Its life's end gives its unused units back, if nothing used or replaced it first.
    setTimeout(() => {
      if (this.#leases.get(first) === lease) this.#end(first, lease);
    }, lifeMs + 1).unref();
    return { ...result, states: leaseStates(lease, 0) };
  }

  /** Drops the lease and gives its unused units back. */
  #end(first: Bucket, lease: Lease): void {
    if (this.#leases.get(first) === lease) this.#leases.delete(first);
    const refund = this.#giveBack(lease);
    this.#refunding.add(refund);
    void refund.finally(() => this.#refunding.delete(refund));
  }

  /** Notes a draw's time: the mean gap between draws (a moving average) sizes the next lease. */
  #paced(first: Bucket): void {
    const clock = performance.now();
    const pace = this.#pace.get(first);
    if (pace === undefined) {
      this.#pace.set(first, { last: clock, gapMs: Number.POSITIVE_INFINITY });
      return;
    }
    const gap = clock - pace.last;
    pace.gapMs = Number.isFinite(pace.gapMs) ? 0.8 * pace.gapMs + 0.2 * gap : gap;
    pace.last = clock;
  }

  async #giveBack(lease: Lease): Promise<void> {
    const refunds = lease.buckets
      .map((bucket, index) => ({ bucket, amount: -(lease.left[index] ?? 0), at: lease.at }))
      .filter(({ amount }) => amount < 0);
    lease.left = lease.left.map(() => 0);
    if (refunds.length === 0) return;
    try {
      await this.#redis.take(refunds, Date.now());
    } catch (error) {
      this.#options.onRefundFailed(error);
    }
  }
}

/**
 * What a lease's draw tells of the buckets: what Redis said when the lease was taken, plus what
 * the lease still holds (this process may still admit that much), its times moved on by `elapsed`.
 * Other instances' admissions since then are not in it: it is at most the lease's life old.
 */
function leaseStates(lease: Lease, elapsed: number): BucketState[] {
  return lease.states.map((state, index) => {
    const remaining = state.remaining + (lease.left[index] ?? 0);
    return {
      limit: state.limit,
      remaining,
      resetMs: Math.max(0, state.resetMs - elapsed),
      nextMs: remaining >= 1 ? 0 : Math.max(0, state.nextMs - elapsed),
    };
  });
}
