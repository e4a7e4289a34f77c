/**
 * The embedded store's ledger writer: a batch in one transaction, 64-row inserts, and the batch's
 * cost added to each key's lifetime spend in the same transaction (spend and ledger never disagree),
 * as are the dashboard's per-minute and per-hour rollups (`rollups.ts`).
 */
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { openDatabase, type Database } from './database.ts';
import { roundMs, type LedgerRow, type LedgerWriter } from '../../usage/ledger.ts';
import type { LedgerTarget, OpenLedgerWriter } from '../../usage/ledger-thread.ts';
import { RollupWriter } from './sqlite-rollups.ts';

export class SqliteLedgerWriter implements LedgerWriter {
  readonly #database: Database;
  /**
   * One multi-row INSERT per chunk size (64, 32, … 1 rows): a batch is written in whole chunks,
   * largest first, so a batch of n rows takes at most n / 64 + 6 statement runs. A busy process's
   * 20 ms batch is often under 64 rows (each worker of `--workers 2` writes half of them), and
   * row-by-row inserts of the remainder cost the ledger's thread twice as much per row.
   */
  readonly #inserts: readonly { rows: number; statement: StatementSync }[];
  readonly #addSpend: StatementSync;
  readonly #rollups: RollupWriter;
  readonly #findRow: StatementSync;

  constructor(database: Database) {
    this.#database = database;
    this.#inserts = chunkSizes.map((rows) => ({ rows, statement: database.prepare(insertSql(rows)) }));
    this.#rollups = new RollupWriter(database);
    this.#addSpend = database.prepare(
      `INSERT INTO key_spend (key_id, spent_usd) VALUES (?, ?)
       ON CONFLICT (key_id) DO UPDATE SET spent_usd = spent_usd + excluded.spent_usd`,
    );
    // Through the (key_id, created_at) index: a handful of rows to compare at most.
    this.#findRow = database.prepare(
      `SELECT 1 AS found FROM usage_ledger
       WHERE key_id = ? AND created_at = ? AND request_id = ? AND attempt = ? LIMIT 1`,
    );
  }

  write(batch: readonly LedgerRow[]): void {
    this.#write(batch, false);
  }

  /**
   * A batch sent again after the ledger's writer thread crashed or stopped answering: the one it was
   * committing may have committed before it could say so. A batch is one transaction, so its last
   * row tells whether all of it is there; asked under the write lock (IMMEDIATE), so a writer still
   * running elsewhere cannot commit it between the question and the insert.
   */
  writeOnce(batch: readonly LedgerRow[]): void {
    this.#write(batch, true);
  }

  #write(batch: readonly LedgerRow[], once: boolean): void {
    const spend = new Map<string, number>();
    for (const row of batch)
      if (row.costUsd > 0) spend.set(row.keyId, (spend.get(row.keyId) ?? 0) + row.costUsd);
    this.#database.exec(once ? 'BEGIN IMMEDIATE' : 'BEGIN');
    try {
      const last = batch.at(-1);
      if (once && last !== undefined && this.#holds(last)) {
        this.#database.exec('COMMIT');
        return;
      }
      let index = 0;
      for (const { rows, statement } of this.#inserts) {
        for (; index + rows <= batch.length; index += rows) {
          const values: SQLInputValue[] = [];
          for (let offset = 0; offset < rows; offset++)
            pushValues(values, batch[index + offset] as LedgerRow);
          statement.run(...values);
        }
      }
      for (const [keyId, cost] of spend) this.#addSpend.run(keyId, cost);
      this.#rollups.write(batch);
      this.#database.exec('COMMIT');
    } catch (error) {
      if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
      throw error;
    }
  }

  #holds(row: LedgerRow): boolean {
    return this.#findRow.get(row.keyId, row.createdAt, row.requestId, row.attempt) !== undefined;
  }
}

/** The ledger's thread writes a store file through this module, on a connection of its own. */
export function embeddedLedgerTarget(path: string): LedgerTarget {
  return { writerModule: import.meta.url, path };
}

/** The ledger's thread's writer (`embeddedLedgerTarget`); the file's migrations are applied already. */
export const openLedgerWriter: OpenLedgerWriter = (path) => {
  const database = openDatabase(path);
  return { writer: new SqliteLedgerWriter(database), close: () => database.close() };
};

/** Rows per multi-row INSERT, largest first (26 columns each: 64 rows is well under SQLite's parameter limit). */
const chunkSizes = [64, 32, 16, 8, 4, 2, 1] as const;

const columns = `request_id, attempt, final, created_at, key_id, surface, model, family, upstream_model,
  deployment, stream, status, upstream_status, outcome, error, prompt_tokens, cached_tokens,
  cache_write_tokens, output_tokens, cost_usd, usage_estimated, latency_ms, ttft_ms, overhead_ms,
  reasoning_tokens, trace_id`;
const rowPlaceholders = `(${Array.from({ length: 26 }, () => '?').join(', ')})`;

function insertSql(rows: number): string {
  return `INSERT INTO usage_ledger (${columns}) VALUES ${Array.from({ length: rows }, () => rowPlaceholders).join(', ')}`;
}

function pushValues(values: SQLInputValue[], row: LedgerRow): void {
  values.push(
    row.requestId,
    row.attempt,
    row.final ? 1 : 0,
    row.createdAt,
    row.keyId,
    row.surface,
    row.model,
    row.family,
    row.upstreamModel ?? null,
    row.deployment ?? null,
    row.stream ? 1 : 0,
    row.status,
    row.upstreamStatus ?? null,
    row.outcome,
    row.error ?? null,
    row.promptTokens,
    row.cachedTokens,
    row.cacheWriteTokens,
    row.outputTokens,
    row.costUsd,
    row.usageEstimated ? 1 : 0,
    roundMs(row.latencyMs),
    roundMs(row.ttftMs),
    roundMs(row.overheadMs),
    row.reasoningTokens,
    row.traceId ?? null,
  );
}
