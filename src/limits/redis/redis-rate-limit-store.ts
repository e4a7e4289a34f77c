/**
 * Rate-limit buckets in Redis, shared by every gateway instance and worker: each operation is one
 * EVALSHA of `lua/buckets.lua`, which reads every bucket, checks them all and writes them all (or
 * none) on the server's clock, with the embedded store's rules (a window: a list of admission
 * times; GCRA: a leaky bucket in integers). A client's buckets share a hash tag (`{owner}`), so
 * they live in one slot and one script can touch them all on a Redis Cluster too.
 */
import type { Bucket, BucketState, Draw, DrawResult, RateLimitStore } from '../rate-limit-store.ts';
import type { RedisConnection } from './redis-connection.ts';

/** A bucket in whole numbers: a unit raises the level by `step`, a millisecond lowers it by `leak`. */
interface Scaled {
  step: number;
  leak: number;
  cap: number;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #scaled = new WeakMap<Bucket, Scaled>();
  readonly #keys = new WeakMap<Bucket, string>();

  constructor(redis: RedisConnection, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async draw(draws: readonly Draw[], _now: number): Promise<DrawResult> {
    return this.drawResult(draws, await this.#run('draw', draws));
  }

  /**
   * `lua/buckets.lua`'s reply (from `offset`) as a draw's result: another script (the budget's
   * one-step admission) checks the same buckets and answers in the same form.
   */
  drawResult(draws: readonly Draw[], reply: readonly number[], offset = 0): DrawResult {
    const allowed = reply[offset] === 1;
    const retry = reply[offset + 2] ?? 0;
    return {
      allowed,
      states: this.#states(draws, reply, offset),
      refusedBy: allowed ? undefined : (reply[offset + 1] ?? 0),
      retryAfterMs: retry < 0 ? Number.POSITIVE_INFINITY : retry,
      at: reply[offset + 3] ?? 0,
    };
  }

  /**
   * A draw that may also take a lease (`lua/lease.lua`): when admitted, up to `wanted[i]` more
   * units of each bucket, at most 1/`share` of the room left, recorded `lifeMs` ahead. The states
   * count the lease as taken; `extras` is what was leased (all zero: no lease).
   */
  async lease(
    draws: readonly Draw[],
    wanted: readonly number[],
    lifeMs: number,
    share: number,
  ): Promise<{ result: DrawResult; extras: number[] }> {
    const { keys, args } = this.bucketArguments(draws);
    const reply = await this.#redis.run('modelgateLease', keys, [lifeMs, share, ...args, ...wanted]);
    if (!Array.isArray(reply)) throw new Error('unexpected reply from the lease script');
    const numbers = reply as number[];
    const extrasAt = 4 + draws.length * 3;
    return {
      result: this.drawResult(draws, numbers),
      extras: draws.map((_, index) => numbers[extrasAt + index] ?? 0),
    };
  }

  async adjust(draw: Draw, _now: number): Promise<void> {
    await this.#run('take', [draw]);
  }

  async take(draws: readonly Draw[], _now: number): Promise<BucketState[]> {
    return this.#states(draws, await this.#run('take', draws));
  }

  async peek(bucketList: readonly Bucket[], _now: number): Promise<BucketState[]> {
    const draws = bucketList.map((bucket) => ({ bucket, amount: 0 }));
    return this.#states(draws, await this.#run('peek', draws));
  }

  async #run(mode: string, draws: readonly Draw[]): Promise<number[]> {
    const { keys, args } = this.bucketArguments(draws);
    const reply = await this.#redis.run('modelgateBuckets', keys, [mode, ...args]);
    if (!Array.isArray(reply)) throw new Error('unexpected reply from the rate-limit script');
    return reply as number[];
  }

  /** The buckets' Redis keys and, per bucket, the script's five arguments. */
  bucketArguments(draws: readonly Draw[]): { keys: string[]; args: number[] } {
    const keys: string[] = [];
    const args: number[] = [];
    for (const { bucket, amount, at } of draws) {
      keys.push(this.#keyOf(bucket));
      // Whole units only: the store works in integers (an estimate is already whole).
      if (bucket.kind === 'window')
        args.push(Math.round(amount), 1, Math.round(bucket.periodMs), Math.round(bucket.limit), at ?? 0);
      else {
        const scaled = this.#scaledOf(bucket);
        args.push(Math.round(amount), 0, scaled.step, scaled.leak, scaled.cap);
      }
    }
    return { keys, args };
  }

  #states(draws: readonly Draw[], reply: readonly number[], offset = 0): BucketState[] {
    return draws.map(({ bucket }, index) => ({
      limit: bucket.limit,
      remaining: reply[offset + 4 + index * 3] ?? 0,
      resetMs: reply[offset + 5 + index * 3] ?? 0,
      nextMs: reply[offset + 6 + index * 3] ?? 0,
    }));
  }

  #keyOf(bucket: Bucket): string {
    let key = this.#keys.get(bucket);
    if (key === undefined) {
      // A window is a list, a GCRA bucket a hash: never one name for both (a rolling upgrade).
      const kind = bucket.kind === 'window' ? ':window' : '';
      key = `${this.#prefix}{${bucket.owner ?? bucket.id}}:${bucket.id.replaceAll('\u0000', ':')}${kind}`;
      this.#keys.set(bucket, key);
    }
    return key;
  }

  #scaledOf(bucket: Bucket): Scaled {
    let scaled = this.#scaled.get(bucket);
    if (scaled === undefined) {
      scaled = scaledBucket(bucket.limit, bucket.periodMs);
      this.#scaled.set(bucket, scaled);
    }
    return scaled;
  }
}

/**
 * `limit` units per `periodMs` as whole numbers: dividing both by their greatest common divisor
 * keeps every level an integer (exact below 2^53: any limit up to 10^11 per minute).
 */
export function scaledBucket(limit: number, periodMs: number): Scaled {
  const divisor = gcd(Math.round(limit), Math.round(periodMs));
  const step = Math.round(periodMs) / divisor;
  const leak = Math.round(limit) / divisor;
  return { step, leak, cap: Math.round(limit) * step };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
