/**
 * `bench:scale --syscalls`: how many event-loop turns (epoll waits) and socket writes each thread
 * made during a run, counted by the kernel's syscall tracepoints through `perf stat --per-thread`
 * (no sampling, nothing in the measured processes). Turns per request is the batching figure: a
 * loop that finds eight requests ready in one turn pays one wake-up for eight.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const events = ['epoll_wait', 'epoll_pwait', 'writev', 'write', 'read'] as const;
export type SyscallName = (typeof events)[number];

export interface SyscallCounter {
  /** Stops counting; per thread id, the calls of each syscall. */
  stop(): Promise<Map<number, Record<SyscallName, number>>>;
}

export function countSyscalls(pids: readonly number[]): SyscallCounter {
  const perf: ChildProcess = spawn(
    'perf',
    [
      'stat',
      '--per-thread',
      '-x',
      ',',
      '-e',
      events.map((name) => `syscalls:sys_enter_${name}`).join(','),
      '-p',
      pids.join(','),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  perf.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
  return {
    async stop() {
      perf.kill('SIGINT');
      await exited;
      const counts = new Map<number, Record<SyscallName, number>>();
      for (const line of output.split('\n')) {
        // comm-tid,count,unit,syscalls:sys_enter_<name>,...
        const [thread, count, , event] = line.split(',');
        const name = event?.replace('syscalls:sys_enter_', '') as SyscallName | undefined;
        const tid = Number(thread?.slice(thread.lastIndexOf('-') + 1));
        if (name === undefined || !events.includes(name) || !Number.isInteger(tid)) continue;
        const row = counts.get(tid) ?? { epoll_wait: 0, epoll_pwait: 0, writev: 0, write: 0, read: 0 };
        row[name] += Number(count) || 0;
        counts.set(tid, row);
      }
      return counts;
    },
  };
}
