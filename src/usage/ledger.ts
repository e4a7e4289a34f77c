/**
 * The usage ledger: one row per upstream attempt (or per request refused before any attempt),
 * appended in memory on the request path and written in batched transactions off it. Writing
 * starts at most `flushWindowMs` after a batch's first row was appended, at most 256 rows per
 * transaction and one transaction per macrotask, so a burst never stalls the requests in flight
 * for long (each slice is about a millisecond; 5,000 pending rows take some 20 of them). A
 * `kill -9` loses at most that window plus the slices; `close()` (graceful shutdown) writes
 * everything. The writer is the store's: the embedded store's (`store/sqlite/sqlite-ledger-writer.ts`) adds each
 * transaction's cost to the keys' lifetime spend, so spend and ledger never disagree; with
 * PostgreSQL the rows go to a local outbox file that is shipped to the server
 * (`store/postgres/ledger-outbox.ts`). This class writes on the thread that appends, between
 * requests: what an in-memory database gets (no other connection can reach it); a store file's
 * ledger is `ledger-thread.ts`, the same batches written by a thread of their own.
 */

/** How a row's attempt (or refused request) ended. */
export type LedgerOutcome = 'ok' | 'aborted' | 'failed' | 'rejected';

export interface LedgerRow {
  requestId: string;
  /** 1, 2, … per upstream attempt; 0 when the request was refused before any upstream call. */
  attempt: number;
  /** The row that carries the request's outcome, usage and cost (one per request). */
  final: boolean;
  /** Unix milliseconds the attempt (or the refused request) started. */
  createdAt: number;
  keyId: string;
  /** `unified` or the surface family. */
  surface: string;
  model: string;
  family: string;
  upstreamModel: string | undefined;
  /** The deployment called (its configured id); undefined when none was. */
  deployment: string | undefined;
  stream: boolean;
  /** The HTTP status the client got. */
  status: number;
  /** The upstream's HTTP status for this attempt; 0 when none arrived; undefined when never sent. */
  upstreamStatus: number | undefined;
  outcome: LedgerOutcome;
  /** The error kind when the attempt or request did not succeed. */
  error: string | undefined;
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Reasoning tokens, part of `outputTokens`, when the upstream reported them. */
  reasoningTokens: number;
  costUsd: number;
  /** The tokens were counted by the gateway from what the client received (a stream cut short). */
  usageEstimated: boolean;
  latencyMs: number | undefined;
  ttftMs: number | undefined;
  overheadMs: number | undefined;
  /** The W3C trace id of the request (the client's `traceparent`, or the gateway's own span). */
  traceId: string | undefined;
}

export interface LedgerSink {
  append(row: LedgerRow): void;
}

/** The running gateway's ledger: appended on the request path, closed (everything written) at shutdown. */
export interface Ledger extends LedgerSink {
  /** Rows appended and not written yet. */
  readonly pending: number;
  /** Writes what is pending now, synchronously: for a process on its way out (`process.exit`). */
  flush(): void;
  close(): Promise<void>;
  /** Calls `watcher` with each row appended from now on; returns what stops it (the live tail). */
  readonly watch?: (watcher: (row: LedgerRow) => void) => () => void;
  /** A ledger written by a thread of its own: what went wrong with it so far (for /metrics). */
  readonly threadEvents?: () => LedgerThreadEvents;
}

/** Counts since start of what a ledger's writer thread went through (`ledger-thread.ts`). */
export interface LedgerThreadEvents {
  /** The thread was started again after it exited on its own. */
  restarts: number;
  /** A hand-off found the queue full and waited for the thread. */
  queueFullWaits: number;
  /** A hand-off's rows stayed in memory because the thread did not make room in time. */
  heldBack: number;
  /** Rows written on the main thread (after `close`, or for a thread that did not answer). */
  writtenHere: number;
}

/** Writes one batch in one transaction, synchronously; throws when nothing was written. */
export interface LedgerWriter {
  write(batch: readonly LedgerRow[]): void;
  /**
   * `write`, unless the batch is written already (its last row is there: a batch is one
   * transaction), checked under the write lock: for a batch sent again after the thread writing it
   * crashed or stopped answering. A writer whose duplicates are harmless (the outbox: the server
   * keeps one row per attempt id) has none.
   */
  writeOnce?(batch: readonly LedgerRow[]): void;
}

/**
 * The most a `kill -9` can lose (see README). Short also for the heap: a row that waits longer
 * than two young-generation collections (~30 ms apart under load) is promoted to the old
 * generation; at 100 ms the ledger's rows were half of all the bytes promoted.
 */
export const flushWindowMs = 20;
/** Past this many pending rows a batch is written at once (bounded memory under bursts). */
const maxPending = 5_000;
/** Rows per transaction in the background flush: about a millisecond of the event loop each. */
const sliceRows = 256;

export interface LedgerOptions {
  flushWindowMs?: number;
  /** Told about a failed write (the rows stay queued and are retried). */
  onError?: (error: unknown) => void;
}

export class UsageLedger implements LedgerSink {
  readonly #writer: LedgerWriter;
  /** Told of every row as it is appended (the dashboard's live tail); usually empty. */
  readonly #watchers = new Set<(row: LedgerRow) => void>();
  readonly #windowMs: number;
  readonly #onError: (error: unknown) => void;
  #pending: LedgerRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #written = 0;

  constructor(writer: LedgerWriter, options: LedgerOptions = {}) {
    this.#writer = writer;
    this.#windowMs = Math.min(options.flushWindowMs ?? flushWindowMs, 200);
    this.#onError = options.onError ?? (() => undefined);
  }

  append(row: LedgerRow): void {
    this.#pending.push(row);
    if (this.#watchers.size > 0) for (const watcher of this.#watchers) watcher(row);
    if (this.#closed) {
      this.flush();
      return;
    }
    if (this.#pending.length >= maxPending) {
      this.#schedule(0);
      return;
    }
    this.#schedule(this.#windowMs);
  }

  /** Writes every pending row in one transaction; returns how many were written. */
  flush(): number {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#pending;
    if (batch.length === 0) return 0;
    this.#pending = [];
    return this.#writeBatch(batch) ? batch.length : 0;
  }

  /** Calls `watcher` with each row appended from now on; returns what stops it. */
  watch(watcher: (row: LedgerRow) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** Writes what is pending; later appends are written at once. */
  close(): void {
    this.#closed = true;
    this.flush();
  }

  get pending(): number {
    return this.#pending.length;
  }

  /** Rows written since start. */
  get written(): number {
    return this.#written;
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(this.#flushInSlices, delayMs);
    this.#timer.unref();
  }

  /**
   * The background flush: at most `sliceRows` rows per transaction, the rest in the next
   * macrotask, so requests in flight get the event loop between slices (a burst of thousands of
   * rows would otherwise stall every one of them for the whole batch).
   */
  readonly #flushInSlices = (): void => {
    this.#timer = undefined;
    const all = this.#pending;
    if (all.length === 0) return;
    const batch = all.length <= sliceRows ? all : all.slice(0, sliceRows);
    this.#pending = batch === all ? [] : all.slice(sliceRows);
    if (this.#writeBatch(batch) && this.#pending.length > 0) this.#schedule(0);
  };

  /** Writes rows taken from the queue; on failure puts them back in front and retries later. */
  #writeBatch(batch: LedgerRow[]): boolean {
    try {
      this.#writer.write(batch);
    } catch (error) {
      this.#pending = batch.concat(this.#pending);
      this.#onError(error);
      if (!this.#closed) this.#schedule(this.#windowMs);
      return false;
    }
    this.#written += batch.length;
    return true;
  }
}

/** Times are kept to a hundredth of a millisecond. */
export function roundMs(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 100) / 100;
}
