/**
 * Ships the outbox's ledger rows to PostgreSQL, oldest first, in batches: one statement per batch
 * inserts the rows (`ON CONFLICT DO NOTHING` on the attempt's id, request id + attempt number) and
 * adds to each key's spend the cost of the rows it really inserted, and in the same transaction
 * those rows go into the dashboard's rollups (`pg-rollups.ts`) — so a batch sent twice (the
 * process died between the server's commit and the outbox's delete, or two shippers overlapped)
 * inserts, charges and counts nothing twice. Rows leave the outbox only after the server
 * committed them. While the server is unreachable the shipper backs off (up to `maxBackoffMs`) and
 * logs the change of state once; the rows wait in the outbox file.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log/logger.ts';
import { roundMs, type LedgerRow } from '../../usage/ledger.ts';
import { StoreUnavailableError } from '../store-errors.ts';
import type { PgConnection } from './connection.ts';
import type { LedgerOutbox, OutboxEntry } from './ledger-outbox.ts';
import { writeRollups } from './pg-rollups.ts';

export interface ShipperOptions {
  /** Rows per statement. */
  batchRows?: number;
  /** How often an idle shipper looks at the outbox (rows written here wake it at once). */
  idleMs?: number;
  /** The longest wait between two tries while the server is unreachable. */
  maxBackoffMs?: number;
  /** How long the shipping lease lasts without renewal (a dead holder's is taken over after it). */
  leaseMs?: number;
  logger?: Logger | undefined;
  clock?: () => number;
}

/** One column of the insert: its name, its array type, and how a row gives its value. */
const columns: readonly [string, string, (row: LedgerRow) => unknown][] = [
  ['request_id', 'text', (row) => row.requestId],
  ['attempt', 'int4', (row) => row.attempt],
  ['final', 'bool', (row) => row.final],
  ['created_at', 'int8', (row) => row.createdAt],
  ['key_id', 'text', (row) => row.keyId],
  ['surface', 'text', (row) => row.surface],
  ['model', 'text', (row) => row.model],
  ['family', 'text', (row) => row.family],
  ['upstream_model', 'text', (row) => row.upstreamModel ?? null],
  ['deployment', 'text', (row) => row.deployment ?? null],
  ['stream', 'bool', (row) => row.stream],
  ['status', 'int4', (row) => row.status],
  ['upstream_status', 'int4', (row) => row.upstreamStatus ?? null],
  ['outcome', 'text', (row) => row.outcome],
  ['error', 'text', (row) => row.error ?? null],
  ['prompt_tokens', 'int8', (row) => row.promptTokens],
  ['cached_tokens', 'int8', (row) => row.cachedTokens],
  ['cache_write_tokens', 'int8', (row) => row.cacheWriteTokens],
  ['output_tokens', 'int8', (row) => row.outputTokens],
  ['cost_usd', 'float8', (row) => row.costUsd],
  ['usage_estimated', 'bool', (row) => row.usageEstimated],
  ['latency_ms', 'float8', (row) => roundMs(row.latencyMs)],
  ['ttft_ms', 'float8', (row) => roundMs(row.ttftMs)],
  ['overhead_ms', 'float8', (row) => roundMs(row.overheadMs)],
  ['reasoning_tokens', 'int8', (row) => row.reasoningTokens],
  ['trace_id', 'text', (row) => row.traceId ?? null],
];

const names = columns.map(([name]) => name).join(', ');

/** Fixed text: one parameter (an array) per column, whatever the batch's size. */
export const shipSql = `WITH incoming AS (
    SELECT * FROM unnest(${columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
      AS r(${names})
  ), inserted AS (
    INSERT INTO usage_ledger (${names}) SELECT ${names} FROM incoming
    ON CONFLICT (request_id, attempt) DO NOTHING
    RETURNING request_id, attempt, key_id, cost_usd
  ), spent AS (
    INSERT INTO key_spend (key_id, spent_usd)
    SELECT key_id, sum(cost_usd) FROM inserted WHERE cost_usd > 0 GROUP BY key_id ORDER BY key_id
    ON CONFLICT (key_id) DO UPDATE SET spent_usd = key_spend.spent_usd + excluded.spent_usd
  )
  SELECT request_id, attempt FROM inserted`;

/**
 * Inserts rows into the server's ledger (idempotent) and adds the ones really inserted to the
 * dashboard's rollups, in one transaction; returns how many were new.
 */
export async function shipRows(connection: PgConnection, rows: readonly LedgerRow[]): Promise<number> {
  const values = shipValues(rows);
  return connection.transaction(async (query) => {
    const inserted = await query<{ request_id: string; attempt: number }>(shipSql, values);
    await writeRollups(query, insertedRows(rows, inserted));
    return inserted.length;
  });
}

/** `shipSql`'s parameters: one array per column. */
export function shipValues(rows: readonly LedgerRow[]): unknown[][] {
  return columns.map(([, , value]) => rows.map(value));
}

/** The rows of the batch the insert added (each id once: a batch holding one twice adds it once). */
function insertedRows(
  rows: readonly LedgerRow[],
  inserted: readonly { request_id: string; attempt: number }[],
): LedgerRow[] {
  if (inserted.length === rows.length) return [...rows];
  const added = new Set(inserted.map((row) => `${row.attempt}:${row.request_id}`));
  return rows.filter((row) => added.delete(`${row.attempt}:${row.requestId}`));
}

/**
 * Failures worth retrying as they are: the server unreachable, a statement cancelled by its timeout,
 * a serialization failure or deadlock, the server short of resources. Anything else is about the rows.
 */
function transient(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    (code === '57014' || code === '40001' || code === '40P01' || code === '55P03' || code.startsWith('53'))
  );
}

export class LedgerShipper {
  readonly #outbox: LedgerOutbox;
  readonly #connection: PgConnection;
  readonly #batchRows: number;
  readonly #idleMs: number;
  readonly #maxBackoffMs: number;
  readonly #leaseMs: number;
  readonly #logger: Logger | undefined;
  readonly #clock: () => number;
  readonly #holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #backoffMs = 0;
  #healthy = true;
  #stopped = false;
  /** Rows this process inserted on the server (replays excluded). */
  inserted = 0;

  constructor(outbox: LedgerOutbox, connection: PgConnection, options: ShipperOptions = {}) {
    this.#outbox = outbox;
    this.#connection = connection;
    this.#batchRows = options.batchRows ?? 1_000;
    this.#idleMs = options.idleMs ?? 100;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5_000;
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Rows were written to the outbox here: ship them now unless the server is backing us off. */
  wake(): void {
    if (this.#backoffMs === 0) this.#schedule(0);
  }

  /**
   * Ships until the outbox is empty or `timeoutMs` passed (shutdown: every process waits for the
   * lease in turn, so the last rows of each are shipped by whoever holds it). Returns the rows
   * still waiting.
   */
  async drain(timeoutMs: number): Promise<number> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const deadline = this.#clock() + timeoutMs;
    await this.#running;
    while (this.#outbox.hasRows() && this.#clock() < deadline) {
      await this.#pass().catch(() => undefined);
      if (this.#outbox.hasRows()) await new Promise((resolve) => setTimeout(resolve, this.#idleMs));
    }
    this.#outbox.release(this.#holder);
    return this.#outbox.count();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#cycle();
    }, delayMs);
    this.#timer.unref();
  }

  async #cycle(): Promise<void> {
    if (this.#running !== undefined) return;
    let delay = this.#idleMs;
    this.#running = this.#pass();
    try {
      await this.#running;
      this.#backoffMs = 0;
      this.#health(true);
    } catch (error) {
      this.#backoffMs = Math.min(Math.max(this.#backoffMs * 2, 250), this.#maxBackoffMs);
      delay = this.#backoffMs;
      this.#health(false, error);
    } finally {
      this.#running = undefined;
    }
    this.#schedule(delay);
  }

  /** Ships every waiting row this process may ship now (it holds the lease). */
  async #pass(): Promise<void> {
    while (this.#outbox.hasRows() && this.#outbox.lease(this.#holder, this.#clock(), this.#leaseMs)) {
      const entries = this.#outbox.take(this.#batchRows);
      await this.#ship(entries);
      this.#outbox.remove(entries);
      if (entries.length < this.#batchRows) return;
    }
  }

  async #ship(entries: readonly OutboxEntry[]): Promise<void> {
    try {
      this.inserted += await shipRows(
        this.#connection,
        entries.map((entry) => entry.row),
      );
    } catch (error) {
      if (transient(error)) throw error;
      // The server refused what a row holds: ship one by one so only that row is set aside.
      for (const entry of entries) {
        try {
          this.inserted += await shipRows(this.#connection, [entry.row]);
        } catch (alone) {
          if (transient(alone)) throw alone;
          const reason = alone instanceof Error ? alone.message : 'refused';
          this.#outbox.reject(entry, reason);
          this.#logger?.error('ledger row refused by PostgreSQL: set aside in the outbox file', {
            outbox: this.#outbox.path,
            requestId: entry.row.requestId,
            cause: reason,
          });
        }
      }
    }
  }

  #health(healthy: boolean, error?: unknown): void {
    if (healthy === this.#healthy) return;
    this.#healthy = healthy;
    const fields = { store: this.#connection.location, outbox: this.#outbox.path };
    if (healthy) this.#logger?.info('PostgreSQL reachable again: shipping the ledger outbox', fields);
    else
      this.#logger?.error('PostgreSQL unreachable: ledger rows wait in the outbox', {
        ...fields,
        cause: error instanceof Error ? error.message : 'unknown',
      });
  }
}
