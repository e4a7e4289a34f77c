/**
 * Per-thread CPU and context switches of a set of processes, from Linux /proc/<pid>/task/<tid>
 * (`bench:scale --threads`): where a set-up's CPU per request goes (the primary, each worker's
 * main thread, its ledger thread, libuv and V8 helpers, Redis) and how often each thread gave the
 * core up (voluntary: it waited for work) or had it taken (nonvoluntary: time-sharing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clockTicksPerSecond } from './proc-stats.ts';

export interface ThreadSample {
  pid: number;
  tid: number;
  name: string;
  cpuMicros: number;
  voluntary: number;
  nonvoluntary: number;
}

function sampleThread(pid: number, tid: number): ThreadSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    const switches = (kind: string): number =>
      Number(new RegExp(`^${kind}_ctxt_switches:\\s+(\\d+)$`, 'm').exec(status)?.[1] ?? 0);
    return {
      pid,
      tid,
      name,
      cpuMicros: (ticks * 1e6) / clockTicksPerSecond(),
      voluntary: switches('voluntary'),
      nonvoluntary: switches('nonvoluntary'),
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every thread of every pid, now. */
export function sampleThreads(pids: readonly number[]): ThreadSample[] {
  return pids.flatMap((pid) => {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return [];
    }
    return tids.flatMap((tid) => sampleThread(pid, Number(tid)) ?? []);
  });
}

/** One group of threads' share of a run, per answered request. */
export interface ThreadShare {
  process: string;
  thread: string;
  cpuMicrosPerRequest: number;
  voluntaryPerRequest: number;
  nonvoluntaryPerRequest: number;
}

/**
 * What each process's threads did between two samples, per request: threads grouped by name within
 * a process (a worker's main thread is the one whose tid is its pid; helpers share names), labelled
 * with `roleOf(pid)` (e.g. "primary", "worker 1", "redis").
 */
export function threadShares(
  before: readonly ThreadSample[],
  after: readonly ThreadSample[],
  requests: number,
  roleOf: (pid: number) => string,
): ThreadShare[] {
  const previous = new Map(before.map((sample) => [sample.tid, sample]));
  const groups = new Map<string, ThreadShare>();
  for (const sample of after) {
    const earlier = previous.get(sample.tid);
    const thread = sample.tid === sample.pid ? 'main' : sample.name;
    const key = `${sample.pid}/${thread}`;
    const group = groups.get(key) ?? {
      process: roleOf(sample.pid),
      thread,
      cpuMicrosPerRequest: 0,
      voluntaryPerRequest: 0,
      nonvoluntaryPerRequest: 0,
    };
    group.cpuMicrosPerRequest += (sample.cpuMicros - (earlier?.cpuMicros ?? 0)) / requests;
    group.voluntaryPerRequest += (sample.voluntary - (earlier?.voluntary ?? 0)) / requests;
    group.nonvoluntaryPerRequest += (sample.nonvoluntary - (earlier?.nonvoluntary ?? 0)) / requests;
    groups.set(key, group);
  }
  return [...groups.values()].filter(
    (group) =>
      group.cpuMicrosPerRequest >= 0.05 || group.voluntaryPerRequest + group.nonvoluntaryPerRequest >= 0.001,
  );
}

export function formatShares(shares: readonly ThreadShare[]): string {
  return shares
    .map(
      (share) =>
        `    ${share.process.padEnd(9)} ${share.thread.padEnd(16)} CPU ${share.cpuMicrosPerRequest.toFixed(1).padStart(6)} µs/req, ` +
        `switches/req voluntary ${share.voluntaryPerRequest.toFixed(3)}, nonvoluntary ${share.nonvoluntaryPerRequest.toFixed(3)}\n`,
    )
    .join('');
}
