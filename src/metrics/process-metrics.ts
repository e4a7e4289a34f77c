/**
 * Process and runtime metrics (CPU, memory, heap, handles, GC, event-loop lag as measured by
 * `monitorEventLoopDelay`): prom-client's default collectors, loaded once per process on first use
 * and rendered at scrape time only. Nothing here runs per request.
 */
import type { Registry } from 'prom-client';

let registry: Promise<Registry> | undefined;

/** The process metrics' Prometheus text (names as prom-client defines them: `process_…`, `nodejs_…`). */
export async function renderProcessMetrics(): Promise<string> {
  return (await processRegistry()).metrics();
}

/** Starts the collectors (the event-loop monitor needs to run before the first scrape). */
export function processRegistry(): Promise<Registry> {
  registry ??= import('prom-client').then(({ default: prometheus }) => {
    const own = new prometheus.Registry();
    prometheus.collectDefaultMetrics({ register: own, eventLoopMonitoringPrecision: 20 });
    return own;
  });
  return registry;
}
