/**
 * The embedded store's rollup writer (the sums themselves are usage/rollups.ts's, shared with
 * PostgreSQL's store/postgres/pg-rollups.ts).
 */
import type { StatementSync } from 'node:sqlite';
import type { Database } from './database.ts';
import { parseCounts } from '../rollup-backfill.ts';
import { formatCounts, type RollupRows } from '../../usage/rollups.ts';

/** The embedded store's rollup writer: one upsert per summed row, histograms merged as text. */
export class RollupWriter {
  readonly #upsert: StatementSync;
  readonly #readLatency: StatementSync;
  readonly #writeLatency: StatementSync;

  constructor(database: Database) {
    this.#upsert = database.prepare(
      `INSERT INTO usage_rollup VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET requests = requests + excluded.requests,
         errors = errors + excluded.errors, attempts = attempts + excluded.attempts,
         retries = retries + excluded.retries, fallbacks = fallbacks + excluded.fallbacks,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
         cached_tokens = cached_tokens + excluded.cached_tokens,
         cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         cost_usd = cost_usd + excluded.cost_usd, overhead_ms = overhead_ms + excluded.overhead_ms,
         overhead_count = overhead_count + excluded.overhead_count`,
    );
    this.#readLatency = database.prepare(
      'SELECT counts FROM latency_rollup WHERE period = ? AND model = ? AND bucket = ? AND metric = ?',
    );
    this.#writeLatency = database.prepare('INSERT OR REPLACE INTO latency_rollup VALUES (?, ?, ?, ?, ?)');
  }

  /** Adds a batch's rollups (`rollupRows`, made where the batch was); in the caller's transaction. */
  write({ usage, latency }: RollupRows): void {
    for (const row of usage) this.#upsert.run(...row);
    // A histogram is one row per bucket: read, merged and written back (one row per bucket keeps
    // a day of minutes at a few thousand rows to read).
    for (const [values, pairs] of latency) {
      const counts = new Map(pairs);
      const stored = this.#readLatency.get(...values) as { counts: string } | undefined;
      if (stored !== undefined)
        for (const [bin, count] of parseCounts(stored.counts))
          counts.set(bin, (counts.get(bin) ?? 0) + count);
      this.#writeLatency.run(...values, formatCounts(counts));
    }
  }
}
