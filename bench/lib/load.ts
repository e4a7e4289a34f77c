/** Parent side of the load generator: one long-lived forked process that runs measurement jobs. */
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWorker, LoadJob, LoadResult, ToWorker } from './load-protocol.ts';
import { canPin, track } from './processes.ts';

export interface LoadGenerator {
  pid: number;
  /** The core it is pinned to, or null when unpinned. */
  cpu: number | null;
  /** Run one job; `onStarted` fires just before the load begins (to sample server counters). */
  run(job: LoadJob, onStarted?: () => void): Promise<LoadResult>;
  close(): void;
}

const workerPath = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

export async function startLoadGenerator(cpu: number | undefined): Promise<LoadGenerator> {
  const child = fork(workerPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  await nextMessage(child, () => undefined);
  const pid = child.pid ?? 0;
  let pinnedTo: number | null = null;
  if (cpu !== undefined && canPin()) {
    // -a: every thread of the process, not only the main one.
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    pinnedTo = cpu;
  }
  return {
    pid,
    cpu: pinnedTo,
    run: (job, onStarted) => {
      const message: ToWorker = { type: 'run', job };
      child.send(message);
      return nextMessage(child, onStarted ?? (() => undefined)).then((result) => {
        if (result === undefined) throw new Error('load generator answered without a result');
        return result;
      });
    },
    close: () => {
      if (child.connected) child.send({ type: 'exit' } satisfies ToWorker);
    },
  };
}

/** Resolve on the next `ready` (undefined) or `result`; reject on `error` or if the worker dies. */
function nextMessage(child: ChildProcess, onStarted: () => void): Promise<LoadResult | undefined> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromWorker): void => {
      switch (message.type) {
        case 'started':
          onStarted();
          return;
        case 'ready':
          finish();
          resolve(undefined);
          return;
        case 'result':
          finish();
          resolve(message.result);
          return;
        case 'error':
          finish();
          reject(new Error(`load generator: ${message.message}`));
          return;
      }
    };
    const onExit = (code: number | null): void => {
      finish();
      reject(new Error(`load generator exited (code ${code ?? 'null'})`));
    };
    const finish = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
