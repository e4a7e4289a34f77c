/**
 * Starting the ledger's writer thread: its file (the same form of the code as this one, `src/` or
 * `dist/`), its resource limits and its messages turned into the owner's callbacks.
 */
import { Worker } from 'node:worker_threads';
import type { FromLedgerWorker, LedgerWorkerData } from './ledger-worker.ts';

const workerFile = new URL(
  import.meta.url.endsWith('.ts') ? './ledger-worker.ts' : './ledger-worker.js',
  import.meta.url,
);

export interface LedgerThreadCallbacks {
  /** A batch was committed (only asked for when `workerData.announce`). */
  onWritten: () => void;
  onError: (error: unknown) => void;
  onExit: (worker: Worker, code: number) => void;
}

/** The thread, unref'd: it never holds the process open (its owner refs it while it drains). */
export function spawnLedgerThread(
  workerData: LedgerWorkerData,
  callbacks: LedgerThreadCallbacks,
): { worker: Worker; exited: Promise<void> } {
  // A small young generation: the thread's garbage is each batch's rows, a few hundred KiB, and
  // the process's own semi-space flags (16 MiB) would let it keep ~20 MiB more at peak.
  const worker = new Worker(workerFile, { workerData, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
  worker.on('message', (message: FromLedgerWorker) => {
    if (message.type === 'written') callbacks.onWritten();
    else
      callbacks.onError(
        new Error(`usage ledger write failed (${message.queued} rows kept, retrying): ${message.message}`),
      );
  });
  worker.on('error', callbacks.onError);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('exit', (code) => callbacks.onExit(worker, code));
  // After the listeners: adding a 'message' listener refs the worker's port again.
  worker.unref();
  return { worker, exited };
}
