/**
 * In a worker of `modelgate serve --workers N`: `/metrics` answers with the whole group's metrics,
 * which the primary merges (`primary-scrape.ts`); and every collect the primary sends is answered
 * with this worker's snapshot. Nothing here runs per request: a snapshot is read only when asked.
 */
import {
  isMessage,
  type CollectMessage,
  type ScrapeMessage,
  type SnapshotMessage,
  type TextMessage,
} from './cluster-messages.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { processRegistry } from './process-metrics.ts';

/** Longer than the primary waits for late workers, so its answer (with their last figures) arrives. */
const answerTimeoutMs = 10_000;

/** Starts answering the primary's collects; returns the scrape: the merged text, from the primary. */
export function metricsThroughPrimary(metrics: GatewayMetrics): () => Promise<string> {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('metricsThroughPrimary: not a cluster worker');
  const waiting = new Map<number, (text: string) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (isMessage<CollectMessage>(message, 'metrics-collect')) {
      void processRegistry()
        .then((registry) => registry.getMetricsAsJSON())
        .then((processMetrics) => {
          const answer: SnapshotMessage = {
            modelgate: 'metrics-snapshot',
            round: message.round,
            pid: process.pid,
            gateway: metrics.snapshot(),
            // Plain fields only (`type` is the text prom-client renders, whatever its typings say).
            process: processMetrics.map(({ name, help, type, values }) => ({
              name,
              help,
              type: String(type),
              values,
            })),
          };
          send(answer);
        });
    } else if (isMessage<TextMessage>(message, 'metrics-text')) {
      waiting.get(message.id)?.(message.text);
    }
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer with the workers’ metrics'));
      }, answerTimeoutMs);
      waiting.set(id, (text) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(text);
      });
      const scrape: ScrapeMessage = { modelgate: 'metrics-scrape', id };
      send(scrape);
    });
}
