/**
 * The ledger off the event loop: rows are appended in memory on the request path, as before, and
 * every `flushWindowMs` the batch is handed to a writer thread (`ledger-worker.ts`: the store's
 * writer module, its own connection to the file) instead of being written here. What the main thread still does per batch
 * is one `postMessage` (the embedded store's: as columns, `ledger-columns.ts`); the writes run there.
 *
 * What is guaranteed:
 * - Acknowledged means committed: the thread stores a batch's sequence number in a shared counter
 *   right after its COMMIT. A `kill -9` loses what was not acknowledged yet: the rows of the last
 *   window and the batch being committed — the same window as writing on this thread did.
 * - Bounded: at most `maxQueuedRows` rows handed off and not acknowledged. A hand-off that would
 *   pass the bound waits for the thread (the event loop blocks: backpressure, at worst what writing
 *   here cost), at most `fullWaitMs`; past that its rows stay in memory for the next window, counted
 *   (`heldBack`) and reported through `onError` — never dropped.
 * - The thread crashing loses nothing: it is started again and every batch not acknowledged is
 *   sent again (`writeOnce`: a batch that committed before the crash is not written twice); each
 *   crash is reported through `onError` and counted (`restarts`).
 * - `close()` (graceful shutdown) waits until everything is acknowledged; `flush()` (a process on
 *   its way out) the same, synchronously. A thread that does not answer within `drainWaitMs` is
 *   stopped and what it had not acknowledged is written on this thread.
 */
import type { Worker } from 'node:worker_threads';
import {
  flushWindowMs,
  type Ledger,
  type LedgerOptions,
  type LedgerRow,
  type LedgerThreadEvents,
  type LedgerWriter,
} from './ledger.ts';
import { HandOffQueue } from './ledger-handoff.ts';
import { handOffForm } from './ledger-columns.ts';
import type { LedgerTarget, LedgerWorkerData, ToLedgerWorker } from './ledger-worker.ts';
import { spawnLedgerThread } from './ledger-thread-spawn.ts';

export type { LedgerTarget, OpenLedgerWriter } from './ledger-worker.ts';

export interface ThreadedLedgerOptions extends LedgerOptions {
  /** Rows handed to the thread and not acknowledged, at most. */
  maxQueuedRows?: number;
  /** How long a hand-off past the bound waits for the thread before keeping its rows here. */
  fullWaitMs?: number;
  /** How long `flush` and `close` wait for the thread before writing its rows on this thread. */
  drainWaitMs?: number;
  /** Told after each batch the thread committed (the outbox's shipper: rows to ship). */
  onWritten?: () => void;
}

/** Past this many rows in memory a batch is handed off at once. */
const maxPendingRows = 5_000;
const defaultMaxQueuedRows = 20_000;
const defaultFullWaitMs = 1_000;
const defaultDrainWaitMs = 10_000;
const lastRestartDelayMs = 1_000;

export class ThreadedLedger implements Ledger {
  readonly #target: LedgerTarget;
  /** A writer on this thread: for a thread that does not answer, and for rows after `close`. */
  readonly #writerHere: () => LedgerWriter;
  readonly #onError: (error: unknown) => void;
  readonly #onWritten: (() => void) | undefined;
  readonly #windowMs: number;
  readonly #fullWaitMs: number;
  readonly #drainWaitMs: number;
  readonly #watchers = new Set<(row: LedgerRow) => void>();
  readonly #handedOff: HandOffQueue;
  #pending: LedgerRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Started with the first row appended: an idle gateway holds no second isolate (~13 MiB). */
  #worker: Worker | undefined;
  /** Resolves when the current thread has exited. */
  #workerExited: Promise<void> = Promise.resolve();
  /** Acknowledged sequence number when the thread was last (re)started: a crash loop backs off. */
  #restartedAt = 0n;
  #restartDelayMs = 0;
  #stopping = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Times the thread was started again after it exited on its own. */
  restarts = 0;
  /** Hand-offs that found the queue full and waited for the thread. */
  queueFullWaits = 0;
  /** Hand-offs whose rows stayed in memory because the thread did not make room in time. */
  heldBack = 0;
  /** Rows written on this thread (after `close`, or for a thread that did not answer). */
  writtenHere = 0;

  /** Its counters above, read when /metrics is scraped. */
  readonly threadEvents = (): LedgerThreadEvents => this;

  constructor(target: LedgerTarget, writerHere: () => LedgerWriter, options: ThreadedLedgerOptions = {}) {
    this.#target = target;
    let writer: LedgerWriter | undefined;
    this.#writerHere = () => (writer ??= writerHere());
    this.#onError = options.onError ?? (() => undefined);
    this.#onWritten = options.onWritten;
    this.#windowMs = Math.min(options.flushWindowMs ?? flushWindowMs, 200);
    this.#handedOff = new HandOffQueue(options.maxQueuedRows ?? defaultMaxQueuedRows);
    this.#fullWaitMs = options.fullWaitMs ?? defaultFullWaitMs;
    this.#drainWaitMs = options.drainWaitMs ?? defaultDrainWaitMs;
  }

  append(row: LedgerRow): void {
    if (this.#watchers.size > 0) for (const watcher of this.#watchers) watcher(row);
    if (this.#closed) {
      this.#writeHere([row]);
      return;
    }
    this.#pending.push(row);
    // The thread boots (its isolate, the writer module, the connection) while the first window runs.
    this.#worker ??= this.#start();
    if (this.#pending.length >= maxPendingRows && this.heldBack === 0) this.#schedule(0);
    else if (this.#timer === undefined) this.#schedule(this.#windowMs);
  }

  /** Rows appended and not acknowledged by the thread yet. */
  get pending(): number {
    return this.#pending.length + this.#handedOff.rows;
  }

  /** Everything handed off and acknowledged, synchronously: for a process on its way out. */
  flush(): void {
    this.#sendPending();
    if (!this.#handedOff.waitUntil(() => this.#handedOff.reap(), this.#drainWaitMs))
      this.#writeUnacknowledgedHere();
  }

  /** The live tail's feed; a property, so it can be passed on detached (`{ watch: ledger.watch }`). */
  readonly watch = (watcher: (row: LedgerRow) => void): (() => void) => {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  };

  /** Waits until the thread acknowledged every row, then ends it; later rows are written here. */
  close(): Promise<void> {
    return (this.#closing ??= this.#shutDown());
  }

  /** Ends the thread as a crash would (tests): it is started again and sent what it had not acknowledged. */
  async crashThreadForTest(): Promise<void> {
    await (this.#worker ??= this.#start()).terminate();
  }

  /** Whether the writer thread was started (it is, with the first row appended). */
  get threadStarted(): boolean {
    return this.#worker !== undefined;
  }

  async #shutDown(): Promise<void> {
    this.#closed = true;
    this.#sendPending();
    const worker = this.#worker;
    if (worker === undefined) return;
    worker.ref();
    const drained = await this.#handedOff.drained(this.#drainWaitMs);
    this.#stopping = true;
    const exited = this.#workerExited;
    if (drained) this.#worker?.postMessage({ type: 'close' } satisfies ToLedgerWorker);
    else {
      await this.#worker?.terminate();
      this.#writeUnacknowledgedHere();
    }
    await exited;
  }

  #start(): Worker {
    const workerData: LedgerWorkerData = {
      target: this.#target,
      acknowledged: this.#handedOff.acknowledged.buffer,
      announce: this.#onWritten !== undefined,
    };
    const { worker, exited } = spawnLedgerThread(workerData, {
      onWritten: () => this.#onWritten?.(),
      onError: (error) => this.#onError(error),
      onExit: (exitedWorker, code) => {
        if (exitedWorker === this.#worker && !this.#stopping) this.#restart(code);
      },
    });
    this.#workerExited = exited;
    return worker;
  }

  /** A thread that exited on its own: started again, sent every batch it had not acknowledged. */
  #restart(code: number): void {
    this.restarts++;
    const acknowledged = this.#handedOff.lastAcknowledged;
    // A thread that dies again before writing anything waits longer each time (a file it cannot open).
    this.#restartDelayMs =
      acknowledged > this.#restartedAt ? 0 : Math.min(lastRestartDelayMs, this.#restartDelayMs * 2 || 10);
    this.#restartedAt = acknowledged;
    this.#onError(
      new Error(
        `usage ledger thread exited (code ${code}); started again, ${this.#handedOff.rows} rows sent again`,
      ),
    );
    const restart = (): void => {
      if (this.#stopping) return;
      this.#worker = this.#start();
      if (this.#closed) this.#worker.ref();
      for (const { seq, rows } of this.#handedOff.batches) this.#post(seq, rows, true);
    };
    if (this.#restartDelayMs === 0) restart();
    else {
      const timer = setTimeout(restart, this.#restartDelayMs);
      // Held open only while `close` waits for the rows.
      if (!this.#closed) timer.unref();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(this.#handOff, delayMs);
    this.#timer.unref();
  }

  /** The window's batch to the thread, within the bound (or kept for the next window). */
  readonly #handOff = (): void => {
    this.#timer = undefined;
    const rows = this.#pending;
    if (rows.length === 0) return;
    const handedOff = this.#handedOff;
    if (!handedOff.hasRoom(rows.length)) {
      this.queueFullWaits++;
      if (!handedOff.waitUntil(() => handedOff.hasRoom(rows.length), this.#fullWaitMs)) {
        this.heldBack++;
        this.#onError(
          new Error(
            `usage ledger queue full (${handedOff.rows} rows not written yet): ${rows.length} rows kept in memory for the next batch`,
          ),
        );
        this.#schedule(this.#windowMs);
        return;
      }
    }
    this.heldBack = 0;
    this.#pending = [];
    this.#send(rows);
  };

  /** Everything in memory to the thread, whatever the bound (shutting down). */
  #sendPending(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const rows = this.#pending;
    this.#pending = [];
    if (rows.length > 0) this.#send(rows);
  }

  #send(rows: LedgerRow[]): void {
    this.#post(this.#handedOff.add(rows), rows, false);
  }

  #post(seq: number, rows: LedgerRow[], resent: boolean): void {
    this.#worker ??= this.#start();
    const form = handOffForm(rows, this.#target.takesColumns === true);
    this.#worker.postMessage({ type: 'batch', seq, resent, ...form } satisfies ToLedgerWorker);
  }

  /** The thread did not acknowledge in time (gone, or its writes fail): its batches written here. */
  #writeUnacknowledgedHere(): void {
    this.#handedOff.reap();
    for (let first = this.#handedOff.batches[0]; first !== undefined; first = this.#handedOff.batches[0]) {
      if (!this.#writeHere(first.rows, true)) return;
      // The thread may have acknowledged it (or a later batch) meanwhile: by sequence number.
      this.#handedOff.written(first.seq);
    }
  }

  #writeHere(rows: readonly LedgerRow[], once = false): boolean {
    try {
      const writer = this.#writerHere();
      if (once && writer.writeOnce !== undefined) writer.writeOnce(rows);
      else writer.write(rows);
      this.writtenHere += rows.length;
      this.#onWritten?.();
      return true;
    } catch (error) {
      this.#onError(
        new Error(
          `usage ledger rows could not be written (${rows.length}): ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return false;
    }
  }
}
