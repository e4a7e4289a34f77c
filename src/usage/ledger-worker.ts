/**
 * The ledger's writer thread (a `node:worker_threads` worker started by `ledger-thread.ts`): it
 * loads the writer module the store names (`LedgerTarget`: the embedded store's writer, or
 * PostgreSQL's local outbox) and opens its own connection to the file; batches are written in the
 * order they arrive, one transaction each. A batch is acknowledged by storing its sequence number
 * in the shared counter right after its COMMIT, so the main thread knows what is durable without a
 * message; a write that fails is reported and retried (backing off), never skipped, so later
 * batches wait behind it and the order holds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LedgerWriter } from './ledger.ts';
import { fromColumnsMessage, type BatchForm, type ColumnsWriter } from './ledger-columns.ts';

/**
 * Where the rows go: a module (its URL) exporting `openLedgerWriter(path)`, and the file. The store
 * names its own writer, so this thread depends on no store.
 */
export interface LedgerTarget {
  writerModule: string;
  path: string;
  /** The module's writer takes batches as columns (`ColumnsWriter`): they are handed over so. */
  takesColumns?: boolean;
}

/** What a writer module exports. */
export type OpenLedgerWriter = (path: string) => {
  writer: LedgerWriter & Partial<ColumnsWriter>;
  close: () => void;
};

export interface LedgerWorkerData {
  target: LedgerTarget;
  /** One BigInt64 slot: the sequence number of the last batch committed. */
  acknowledged: SharedArrayBuffer;
  /** Post `written` after each commit (the outbox's shipper wakes on it). */
  announce: boolean;
}

/** Main thread → writer thread. */
export type ToLedgerWorker =
  | ({ type: 'batch'; seq: number; resent: boolean } & BatchForm)
  /** Write what is queued, close the connection, exit. */
  | { type: 'close' };

/** Writer thread → main thread. */
export type FromLedgerWorker =
  { type: 'write-failed'; message: string; queued: number } | { type: 'written'; seq: number };

const firstRetryMs = 20;
const lastRetryMs = 1_000;

async function run(port: NonNullable<typeof parentPort>, data: LedgerWorkerData): Promise<void> {
  const module = (await import(data.target.writerModule)) as { openLedgerWriter: OpenLedgerWriter };
  const { writer, close } = module.openLedgerWriter(data.target.path);
  const acknowledged = new BigInt64Array(data.acknowledged);
  const queue: Extract<ToLedgerWorker, { type: 'batch' }>[] = [];
  let retryMs = firstRetryMs;
  let retrying: NodeJS.Timeout | undefined;
  let closing = false;

  const write = (batch: Extract<ToLedgerWorker, { type: 'batch' }>): void => {
    if ('columns' in batch) {
      if (writer.writeColumns === undefined) throw new Error('the ledger writer does not take columns');
      // Parsed for each try: a write that failed is tried again from the message as it came.
      writer.writeColumns(fromColumnsMessage(batch.columns), batch.resent);
    } else if (batch.resent && writer.writeOnce !== undefined) writer.writeOnce(batch.rows);
    else writer.write(batch.rows);
  };

  const drain = (): void => {
    if (retrying !== undefined) return;
    for (let batch = queue[0]; batch !== undefined; batch = queue[0]) {
      try {
        write(batch);
      } catch (error) {
        port.postMessage({
          type: 'write-failed',
          message: error instanceof Error ? error.message : String(error),
          queued: queue.reduce((rows, queued) => rows + queued.count, 0),
        } satisfies FromLedgerWorker);
        retrying = setTimeout(() => {
          retrying = undefined;
          drain();
        }, retryMs);
        retryMs = Math.min(retryMs * 2, lastRetryMs);
        return;
      }
      queue.shift();
      // Straight after the COMMIT, in the same synchronous run: nothing can come between them
      // but the end of the whole thread, and a batch sent again is checked (`writeOnce`).
      Atomics.store(acknowledged, 0, BigInt(batch.seq));
      Atomics.notify(acknowledged, 0);
      if (data.announce) port.postMessage({ type: 'written', seq: batch.seq } satisfies FromLedgerWorker);
      retryMs = firstRetryMs;
    }
    if (closing) {
      close();
      port.close();
    }
  };

  port.on('message', (message: ToLedgerWorker) => {
    if (message.type === 'batch') queue.push(message);
    else closing = true;
    drain();
  });
}

// Messages sent before the writer module loaded wait in the port until `run` listens.
if (parentPort !== null) await run(parentPort, workerData as LedgerWorkerData);
