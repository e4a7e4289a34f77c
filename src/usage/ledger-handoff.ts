/**
 * The batches the ledger handed to its writer thread and the thread has not acknowledged yet, in
 * order, with the shared counter the thread acknowledges them in (the sequence number of the last
 * batch it committed) and the waits on it: the bound's backpressure, `flush`'s and `close`'s drain.
 */
import type { LedgerRow } from './ledger.ts';

export interface HandedOff {
  seq: number;
  rows: LedgerRow[];
}

export class HandOffQueue {
  /** One BigInt64 slot, shared with the thread. */
  readonly acknowledged = new BigInt64Array(new SharedArrayBuffer(8));
  readonly #batches: HandedOff[] = [];
  readonly #maxRows: number;
  #rows = 0;
  #nextSeq = 1;

  constructor(maxRows: number) {
    this.#maxRows = maxRows;
  }

  /** Queues a batch; returns its sequence number. */
  add(rows: LedgerRow[]): number {
    const seq = this.#nextSeq++;
    this.#batches.push({ seq, rows });
    this.#rows += rows.length;
    return seq;
  }

  /** The batches not acknowledged, oldest first. */
  get batches(): readonly HandedOff[] {
    return this.#batches;
  }

  /** Rows handed off and not acknowledged. */
  get rows(): number {
    this.reap();
    return this.#rows;
  }

  /** The sequence number of the last batch committed. */
  get lastAcknowledged(): bigint {
    return Atomics.load(this.acknowledged, 0);
  }

  /** Forgets acknowledged batches; true when nothing handed off waits. */
  reap(): boolean {
    const acknowledged = Number(this.lastAcknowledged);
    while ((this.#batches[0]?.seq ?? Infinity) <= acknowledged) this.#forgetFirst();
    return this.#batches.length === 0;
  }

  /** The oldest batch, written by someone else than the thread (`seq` still first): forgotten. */
  written(seq: number): void {
    if (this.#batches[0]?.seq === seq) this.#forgetFirst();
    this.reap();
  }

  hasRoom(rows: number): boolean {
    this.reap();
    return this.#rows === 0 || this.#rows + rows <= this.#maxRows;
  }

  /** Blocks this thread until `condition` holds or `waitMs` passed (each acknowledgement wakes it). */
  waitUntil(condition: () => boolean, waitMs: number): boolean {
    const deadline = performance.now() + waitMs;
    for (;;) {
      const seen = this.lastAcknowledged;
      if (condition()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.acknowledged, 0, seen, left);
    }
  }

  /** Resolves true once everything is acknowledged, false after `waitMs` (the event loop runs). */
  async drained(waitMs: number): Promise<boolean> {
    const deadline = performance.now() + waitMs;
    while (!this.reap()) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await Atomics.waitAsync(this.acknowledged, 0, this.lastAcknowledged, Math.min(50, left)).value;
    }
    return true;
  }

  #forgetFirst(): void {
    const first = this.#batches.shift();
    if (first !== undefined) this.#rows -= first.rows.length;
  }
}
