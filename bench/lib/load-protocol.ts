/** Messages between the bench (parent) and the load generator process (load-worker.ts). */

export interface LoadJob {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
}

export interface LatencySummary {
  /** Milliseconds, sub-millisecond precision (autocannon's own histogram rounds to whole ms). */
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export interface LoadResult {
  /** 2xx responses completed inside the measured window. */
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  requestsPerSecond: number;
  /** Latency of 2xx responses only (request written → response complete). */
  latency: LatencySummary;
}

export type ToWorker = { type: 'run'; job: LoadJob } | { type: 'exit' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'started' }
  | { type: 'result'; result: LoadResult }
  | { type: 'error'; message: string };
