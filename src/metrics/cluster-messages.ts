/**
 * What a worker and its primary say to each other about metrics (node:cluster IPC, structured
 * clone). A scrape lands on one worker; it asks the primary, which collects a snapshot from every
 * worker, merges them and sends back the text:
 *
 *   worker ──scrape{id}──► primary ──collect{round}──► every worker ──snapshot{round}──► primary
 *   worker ◄──text{id}──── primary (merged)
 */
import type { ProcessMetric } from './exposition.ts';
import type { MetricSnapshot } from './metric-snapshot.ts';

export interface ScrapeMessage {
  modelgate: 'metrics-scrape';
  id: number;
}

export interface CollectMessage {
  modelgate: 'metrics-collect';
  round: number;
}

export interface SnapshotMessage {
  modelgate: 'metrics-snapshot';
  round: number;
  pid: number;
  gateway: MetricSnapshot[];
  process: ProcessMetric[];
}

export interface TextMessage {
  modelgate: 'metrics-text';
  id: number;
  text: string;
}

export function isMessage<M extends { modelgate: string }>(
  message: unknown,
  kind: M['modelgate'],
): message is M {
  return (
    typeof message === 'object' && message !== null && (message as { modelgate?: unknown }).modelgate === kind
  );
}
