/** What the bench sends the open-loop generator process and what it prints back. */
import type { LatencySummary } from './open-loop-math.ts';

export interface OpenLoopJob {
  /** Origin, e.g. http://127.0.0.1:1234. */
  url: string;
  path: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  /** Connections opened (one request each) before the schedule starts. */
  primedConnections: number;
  /** More are opened on demand, up to this many; beyond, sends wait for one. */
  maxConnections: number;
  timeoutSeconds: number;
  graceSeconds: number;
}

export interface OpenLoopResult {
  rate: number;
  ok: number;
  errors: number;
  unfinished: number;
  /** Some request of the window was still unfinished after the grace period. */
  saturated: boolean;
  /** Intended send → end of the response, ms. */
  latency: LatencySummary;
  /** Streams: intended send → first body byte, ms. */
  firstByte: LatencySummary | null;
  /** Actual send − intended send, ms (timer grain, generator load, waits for a connection). */
  sendLag: LatencySummary;
  connections: { primed: number; opened: number; maxInFlight: number; sendsWaited: number };
  windowMs: number;
  generatorCpuMicros: number;
}
