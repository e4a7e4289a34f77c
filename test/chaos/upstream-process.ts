/**
 * The fake upstream in its own process (the simulator, paced), for the scenarios that time
 * disconnects: its event loop is then not the one the gateway and the clients share. Reports
 * over IPC; times are epoch milliseconds (`performance.timeOrigin + performance.now()`), so both
 * processes read the same clock.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFakeUpstream, type FakeUpstreamOptions, type FakeUpstreamStats } from './fake-upstream.ts';

interface Report {
  stats: FakeUpstreamStats;
  /** Tag → epoch ms when its response closed. */
  closedAt: [number, number][];
  /** Tags seen. */
  tags: number[];
}

export interface UpstreamProcess {
  url: string;
  report(): Promise<{ stats: FakeUpstreamStats; closedAt: Map<number, number>; tags: Set<number> }>;
  close(): Promise<void>;
}

export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function startUpstreamProcess(options: FakeUpstreamOptions): Promise<UpstreamProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve(message as string));
    child.once('exit', (code) => reject(new Error(`fake upstream process exited (${code})`)));
  });
  return {
    url,
    report: () =>
      new Promise((resolve) => {
        child.once('message', (message) => {
          const report = message as Report;
          resolve({ stats: report.stats, closedAt: new Map(report.closedAt), tags: new Set(report.tags) });
        });
        child.send('report');
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

// The child: start the fake upstream, report its URL, answer reports.
if (
  process.send !== undefined &&
  process.argv[2] !== undefined &&
  process.argv[1] === fileURLToPath(import.meta.url)
) {
  const options = JSON.parse(process.argv[2]) as FakeUpstreamOptions;
  const fake = await startFakeUpstream(options);
  const closedAt = new Map<number, number>();
  const tags: number[] = [];
  fake.record = false;
  fake.behave = (request) => {
    if (request.tag !== undefined) tags.push(request.tag);
    return { kind: 'simulate' };
  };
  fake.onClose = (tag) => closedAt.set(tag, epochNow());
  process.on('message', () => {
    const report: Report = { stats: fake.stats, closedAt: [...closedAt], tags };
    process.send?.(report);
  });
  process.send(fake.url);
}
