/**
 * `npm run bench:redis`: what admission through Redis adds over the embedded store. One
 * process draws a request's two buckets (requests and tokens of a key × family) in turn from the
 * in-memory store and from a real redis-server on loopback, interleaved in rounds, and prints p50
 * and p99 of each and their difference. Needs `redis-server` on the PATH.
 */
import { MemoryRateLimitStore } from '../src/limits/memory-rate-limit-store.ts';
import { RateLimiter } from '../src/limits/rate-limiter.ts';
import { RedisConnection } from '../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../src/limits/redis/redis-rate-limit-store.ts';
import { startRedis } from '../test/kit/real-servers.ts';

const limits = {
  alpha: { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 },
  beta: { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 },
  gamma: { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 },
};
const rounds = 5;
const perRound = 4_000;

const redis = await startRedis();
const connection = new RedisConnection({
  url: redis.url,
  commandTimeoutMs: 1_000,
  breakerFailures: 3,
  breakerCooldownMs: 1_000,
});
await connection.connect();
const stores = {
  embedded: new RateLimiter(new MemoryRateLimitStore(), limits),
  redis: new RateLimiter(new RedisRateLimitStore(connection, 'bench:'), limits),
};
const samples: Record<keyof typeof stores, number[]> = { embedded: [], redis: [] };
const keys = Array.from({ length: 100 }, (_, index) => ({
  id: `key-${index}`,
  rpm: undefined,
  tpm: undefined,
}));
try {
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(stores) as (keyof typeof stores)[]) {
      const limiter = stores[name];
      for (let index = 0; index < perRound; index++) {
        const started = performance.now();
        await limiter.acquire(
          keys[index % keys.length] ?? { id: 'k', rpm: undefined, tpm: undefined },
          'beta',
          200,
          Date.now(),
        );
        // The first round warms up (JIT, script load) and is not counted.
        if (round > 0) samples[name].push(performance.now() - started);
      }
    }
  }
} finally {
  await connection.close();
  await redis.stop();
}
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
};
const row = (name: string, values: number[]): string =>
  `${name.padEnd(9)} p50 ${(percentile(values, 0.5) * 1000).toFixed(0).padStart(5)} µs   p99 ${(percentile(values, 0.99) * 1000).toFixed(0).padStart(6)} µs`;
process.stdout.write(
  `admission (two buckets, ${samples.redis.length} draws each, sequential, loopback)\n${row('embedded', samples.embedded)}\n${row('redis', samples.redis)}\n` +
    `added by Redis: p50 ${((percentile(samples.redis, 0.5) - percentile(samples.embedded, 0.5)) * 1000).toFixed(0)} µs, p99 ${((percentile(samples.redis, 0.99) - percentile(samples.embedded, 0.99)) * 1000).toFixed(0)} µs\n`,
);
