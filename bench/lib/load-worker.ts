/**
 * The load generator, run as its own process so it never shares an event loop with what it measures.
 * It drives autocannon job by job (sent over IPC by load.ts) and records every response time itself:
 * autocannon's histogram keeps whole milliseconds, too coarse for sub-millisecond overheads.
 */
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { FromWorker, LoadJob, LoadResult, ToWorker } from './load-protocol.ts';
import { percentileSorted, sortedCopy } from './stats.ts';

interface AutocannonOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  pipelining: number;
  timeout: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

type Autocannon = (
  options: AutocannonOptions,
  done: (error: Error | null, result: AutocannonResult) => void,
) => EventEmitter;

// autocannon ships CommonJS without type declarations; the shape used here is declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function send(message: FromWorker): void {
  process.send?.(message);
}

function runJob(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const options: AutocannonOptions = {
      url: job.url,
      method: job.method,
      headers: job.headers,
      body: job.body,
      connections: job.connections,
      duration: job.seconds,
      pipelining: 1,
      timeout: 10,
    };
    const instance = autocannon(options, (error, result) => {
      if (error !== null) {
        reject(error);
        return;
      }
      resolve(summarize(latencies, result));
    });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

function summarize(latencies: number[], result: AutocannonResult): LoadResult {
  const sorted = sortedCopy(latencies);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    ok: sorted.length,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    requestsPerSecond: result.duration > 0 ? sorted.length / result.duration : 0,
    latency: {
      p50: percentileSorted(sorted, 50),
      p90: percentileSorted(sorted, 90),
      p99: percentileSorted(sorted, 99),
      mean: sorted.length > 0 ? total / sorted.length : Number.NaN,
      max: sorted.length > 0 ? (sorted[sorted.length - 1] ?? Number.NaN) : Number.NaN,
    },
  };
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'exit') {
    process.exit(0);
  }
  send({ type: 'started' });
  runJob(message.job).then(
    (result) => {
      send({ type: 'result', result });
    },
    (error: unknown) => {
      send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    },
  );
});

// The parent forked us: die with it rather than keep loading a server nobody measures.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
