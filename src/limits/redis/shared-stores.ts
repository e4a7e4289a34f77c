/** The Redis side of the per-client services: loaded only when MODELGATE_REDIS_URL is set. */
import type { Config } from '../../config/config.ts';
import type { Logger } from '../../log/logger.ts';
import type { BudgetStore } from '../budgets.ts';
import type { RateLimitStore } from '../rate-limit-store.ts';
import { FailoverRateLimitStore } from '../store-failover.ts';
import { BucketLeases } from './bucket-leases.ts';
import { RedisBudgets } from './redis-budgets.ts';
import { RedisConnection } from './redis-connection.ts';
import { RedisRateLimitStore } from './redis-rate-limit-store.ts';

export interface SharedStores {
  limits: RateLimitStore;
  budgets: BudgetStore;
  redis: RedisConnection | undefined;
  /** Gives back what this process holds of the shared store (its leases), before the connection closes. */
  release?: () => Promise<void>;
}

/**
 * Leases (`bucket-leases.ts`): used for 50 ms at most, up to 64 requests, at most an eighth of a
 * window's room (so near a limit they stop and every admission goes to Redis).
 */
const leaseOptions = { lifeMs: 50, maxRequests: 64, share: 8 };

/** Rate limits and budgets in Redis, with the configured failure policy. */
export function redisStores(
  config: Config,
  redisUrl: string,
  spend: ReadonlyMap<string, number>,
  logger: Logger,
): SharedStores {
  const { commandTimeoutMs, prefix, onStoreFailure, instances, holdTtlMs } = config.sharedStore;
  // A settle that fails is logged once per outage, not once per request.
  let settleFailureLogged = false;
  const redis = new RedisConnection({
    url: redisUrl,
    commandTimeoutMs,
    breakerFailures: 3,
    breakerCooldownMs: 1_000,
    onHealthChange: (healthy, cause) => {
      if (healthy) {
        settleFailureLogged = false;
        logger.info('shared limits store reachable again');
      } else
        logger.error(
          onStoreFailure === 'local'
            ? 'shared limits store unreachable: rate limits are per process (limit ÷ instances), budgets refuse'
            : 'shared limits store unreachable: requests are refused with 503 until it answers',
          { cause },
        );
    },
  });
  const buckets = new RedisRateLimitStore(redis, prefix);
  const leases = new BucketLeases(buckets, {
    ...leaseOptions,
    onRefundFailed: (error) =>
      logger.warn('a lease of the shared limits could not be given back (it expires on its own)', {
        cause: error instanceof Error ? error.message : 'unknown',
      }),
  });
  const limits = new FailoverRateLimitStore(leases, {
    mode: onStoreFailure,
    instances,
    onFallback: () => undefined,
  });
  const budgets = new RedisBudgets(redis, {
    prefix,
    // By default the longest a request waits for its answer to start (every attempt), plus a
    // minute for the answer itself: long enough for nearly every request to settle its own hold.
    holdTtlMs: holdTtlMs ?? config.retry.budgetMs + config.timeouts.firstByteMs + 60_000,
    initialSpend: spend,
    // A request with a budget: hold and buckets in one script. Budgets fail closed, so this path
    // needs no `onStoreFailure` fallback: an unreachable Redis refuses it with a 503 either way.
    buckets,
    onError: (error) => {
      if (settleFailureLogged) return;
      settleFailureLogged = true;
      logger.error(
        'budget settle failed: spend not counted in the shared store (logged once until it answers again)',
        {
          cause: error instanceof Error ? error.message : 'unknown',
        },
      );
    },
  });
  const release = async (): Promise<void> => {
    await Promise.all([leases.close(), budgets.flush()]);
  };
  return { limits, budgets, redis, release };
}
