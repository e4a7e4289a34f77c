/**
 * In the primary of `modelgate serve --workers N`: a scrape that lands on any worker gets the whole
 * group's metrics. The primary asks every worker for its snapshot, waits for them (a worker too busy
 * to answer in `lateAfterMs` is counted from its last answer, and said to be late), merges them
 * (`merge-snapshots.ts`: sums, the series cap kept) and renders the text the worker serves.
 *
 * Sums never go down between scrapes, as Prometheus expects of a counter: a worker that exits
 * leaves its counters and histograms (as last collected) in a retired total that every later scrape
 * adds, and its replacement starts its own from zero. What a worker counted after its last
 * collect is lost with it. Process metrics stay per worker, under a `worker` label (the cluster's
 * worker id; `modelgate_worker_info` maps it to the pid).
 */
import type { Worker } from 'node:cluster';
import {
  isMessage,
  type CollectMessage,
  type ScrapeMessage,
  type SnapshotMessage,
  type TextMessage,
} from './cluster-messages.ts';
import { formatNumber, labelText, renderProcessMetrics, renderSnapshots } from './exposition.ts';
import type { MetricSnapshot } from './metric-snapshot.ts';
import { SnapshotMerge } from './merge-snapshots.ts';

interface Member {
  worker: Worker;
  /** Listening: a worker still starting is not waited for (it has counted nothing yet). */
  ready: boolean;
  last: SnapshotMessage | undefined;
}

interface Round {
  id: number;
  /** Workers whose snapshot for this round has not come yet. */
  remaining: Set<number>;
  done(): void;
}

export class PrimaryMetrics {
  readonly #merge: SnapshotMerge;
  readonly #lateAfterMs: number;
  readonly #members = new Map<number, Member>();
  /** Counters and histograms of workers that exited, as last collected. */
  #retired: MetricSnapshot[] = [];
  #round: Round | undefined;
  /** The collection under way: scrapes that arrive meanwhile share its answer. */
  #collecting: Promise<string> | undefined;
  #rounds = 0;

  constructor(maxSeries: number, lateAfterMs = 3_000) {
    this.#merge = new SnapshotMerge(maxSeries);
    this.#lateAfterMs = lateAfterMs;
  }

  /** A new worker: its scrapes are answered, its snapshots collected. */
  add(worker: Worker): void {
    const member: Member = { worker, ready: false, last: undefined };
    this.#members.set(worker.id, member);
    worker.on('message', (message: unknown) => {
      if (isMessage<{ modelgate: 'listening' }>(message, 'listening')) member.ready = true;
      else if (isMessage<ScrapeMessage>(message, 'metrics-scrape')) this.#answer(worker, message.id);
      else if (isMessage<SnapshotMessage>(message, 'metrics-snapshot')) this.#received(member, message);
    });
  }

  /** A worker exited: its counters and histograms stay in every later sum. */
  remove(worker: Worker): void {
    const member = this.#members.get(worker.id);
    if (member === undefined) return;
    this.#members.delete(worker.id);
    const round = this.#round;
    if (round !== undefined && round.remaining.delete(worker.id) && round.remaining.size === 0) round.done();
    if (member.last === undefined) return;
    const monotone = member.last.gateway.filter((metric) => metric.type !== 'gauge');
    this.#retired = this.#merge.merge([this.#retired, monotone]).metrics;
  }

  #answer(worker: Worker, id: number): void {
    this.#collecting ??= this.#collect().finally(() => {
      this.#collecting = undefined;
    });
    void this.#collecting.then((text) => {
      const answer: TextMessage = { modelgate: 'metrics-text', id, text };
      if (worker.isConnected()) worker.send(answer);
    });
  }

  #received(member: Member, message: SnapshotMessage): void {
    member.last = message;
    const round = this.#round;
    if (round === undefined || message.round !== round.id) return;
    if (round.remaining.delete(member.worker.id) && round.remaining.size === 0) round.done();
  }

  async #collect(): Promise<string> {
    const started = performance.now();
    const id = ++this.#rounds;
    const members = [...this.#members.values()].filter(
      (member) => member.ready && member.worker.isConnected(),
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, this.#lateAfterMs);
      function finish(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#round = { id, remaining: new Set(members.map((member) => member.worker.id)), done: finish };
      const collect: CollectMessage = { modelgate: 'metrics-collect', round: id };
      for (const member of members) member.worker.send(collect);
      if (members.length === 0) finish();
    });
    this.#round = undefined;
    // A worker that exited meanwhile is in the retired total already.
    const present = members.filter((member) => this.#members.has(member.worker.id));
    const answered = present.filter((member) => member.last !== undefined);
    const late = present.filter((member) => member.last?.round !== id).length;
    const { metrics, folded } = this.#merge.merge([
      this.#retired,
      ...answered.map((member) => (member.last as SnapshotMessage).gateway),
    ]);
    const out: string[] = [];
    renderSnapshots(metrics, out);
    gauge(
      out,
      'modelgate_metrics_series_folded',
      'Series of the workers added to a metric’s overflow series when merged (the merged metric reached its series cap).',
      ['metric'],
      [...folded].map(([metric, count]) => [[metric], count]),
    );
    gauge(
      out,
      'modelgate_workers',
      'Worker processes in this scrape: answered, or late (counted from their last answer).',
      ['state'],
      [
        [['answered'], present.length - late],
        [['late'], late],
      ],
    );
    gauge(
      out,
      'modelgate_worker_info',
      'The worker label of the process metrics: its pid.',
      ['worker', 'pid'],
      answered.map((member) => [[String(member.worker.id), String(member.last?.pid ?? '')], 1]),
    );
    gauge(
      out,
      'modelgate_metrics_merge_seconds',
      'Time the primary took to collect and merge this scrape.',
      [],
      [[[], (performance.now() - started) / 1000]],
    );
    renderProcessMetrics(
      answered.map((member) => ({ worker: String(member.worker.id), metrics: member.last?.process ?? [] })),
      out,
    );
    return out.join('');
  }
}

function gauge(
  out: string[],
  name: string,
  help: string,
  labelNames: readonly string[],
  samples: readonly (readonly [readonly string[], number])[],
): void {
  out.push(`# HELP ${name} ${help}\n# TYPE ${name} gauge\n`);
  for (const [values, value] of samples)
    out.push(`${name}${labelText(labelNames, values)} ${formatNumber(value)}\n`);
}
