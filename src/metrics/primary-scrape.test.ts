import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import {
  isMessage,
  type CollectMessage,
  type SnapshotMessage,
  type TextMessage,
} from './cluster-messages.ts';
import { PrimaryMetrics } from './primary-scrape.ts';
import { MetricsRegistry } from './registry.ts';

/** A worker as the primary sees it: its own registry; it answers collects unless told to be silent. */
class FakeWorker extends EventEmitter {
  readonly id: number;
  readonly registry = new MetricsRegistry({ maxSeries: 100 });
  readonly requests = this.registry.counter('demo_requests_total', 'Requests.', ['model']);
  inFlight = 0;
  silent = false;
  readonly texts: string[] = [];

  constructor(id: number, primary: PrimaryMetrics, listening = true) {
    super();
    this.id = id;
    primary.add(this as unknown as Worker);
    if (listening) this.listening();
    this.registry.gauge('demo_in_flight', 'In flight.', [], () => [[[], this.inFlight]]);
  }

  listening(): void {
    this.emit('message', { modelgate: 'listening', url: 'http://127.0.0.1:1' });
  }

  isConnected(): boolean {
    return true;
  }

  send(message: unknown): boolean {
    if (isMessage<TextMessage>(message, 'metrics-text')) this.texts.push(message.text);
    else if (isMessage<CollectMessage>(message, 'metrics-collect') && !this.silent) {
      const answer: SnapshotMessage = {
        modelgate: 'metrics-snapshot',
        round: message.round,
        pid: 1000 + this.id,
        gateway: this.registry.snapshot(),
        process: [
          { name: 'process_open_fds', help: 'Fds.', type: 'gauge', values: [{ value: this.id, labels: {} }] },
        ],
      };
      setImmediate(() => this.emit('message', answer));
    }
    return true;
  }

  /** A scrape that landed on this worker: the text the primary sends back. */
  async scrape(): Promise<string> {
    const before = this.texts.length;
    this.emit('message', { modelgate: 'metrics-scrape', id: before });
    while (this.texts.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    return this.texts.at(-1) as string;
  }
}

const asWorker = (fake: FakeWorker): Worker => fake as unknown as Worker;
const sample = (text: string, line: string): number => {
  const match = new RegExp(`^${line.replace(/[{}()[\]]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
  assert.ok(match, `${line} in\n${text}`);
  return Number(match[1]);
};

test('a scrape on either worker answers the group’s sums; process metrics per worker', async () => {
  const primary = new PrimaryMetrics(100);
  const one = new FakeWorker(1, primary);
  const two = new FakeWorker(2, primary);
  one.requests.add(['A-1'], 3);
  two.requests.add(['A-1'], 4);
  one.inFlight = 1;
  two.inFlight = 2;
  for (const scraped of [one, two]) {
    const text = await scraped.scrape();
    assert.equal(sample(text, 'demo_requests_total{model="A-1"}'), 7);
    assert.equal(sample(text, 'demo_in_flight'), 3);
    assert.equal(sample(text, 'process_open_fds{worker="1"}'), 1);
    assert.equal(sample(text, 'process_open_fds{worker="2"}'), 2);
    assert.equal(sample(text, 'modelgate_worker_info{worker="2",pid="1002"}'), 1);
    assert.equal(sample(text, 'modelgate_workers{state="answered"}'), 2);
    assert.equal(text.match(/# TYPE process_open_fds/g)?.length, 1);
  }
});

test('a worker too busy to answer is counted from its last answer, and said to be late', async () => {
  const primary = new PrimaryMetrics(100, 50);
  const one = new FakeWorker(1, primary);
  const two = new FakeWorker(2, primary);
  two.requests.add(['A-1'], 4);
  await one.scrape();
  two.silent = true;
  two.requests.add(['A-1'], 100);
  one.requests.add(['A-1'], 1);
  const text = await one.scrape();
  assert.equal(sample(text, 'demo_requests_total{model="A-1"}'), 5);
  assert.equal(sample(text, 'modelgate_workers{state="late"}'), 1);
});

test('a worker that exits leaves its counters in every later sum; its gauges go; its replacement adds from zero', async () => {
  const primary = new PrimaryMetrics(100);
  const one = new FakeWorker(1, primary);
  const two = new FakeWorker(2, primary);
  one.requests.add(['A-1'], 3);
  two.requests.add(['A-1'], 4);
  two.inFlight = 9;
  assert.equal(sample(await one.scrape(), 'demo_requests_total{model="A-1"}'), 7);
  primary.remove(asWorker(two));
  const three = new FakeWorker(3, primary);
  three.requests.add(['A-1'], 1);
  const text = await three.scrape();
  assert.equal(sample(text, 'demo_requests_total{model="A-1"}'), 8);
  assert.equal(sample(text, 'demo_in_flight'), 0);
  assert.doesNotMatch(text, /worker="2"/);
});

test('a worker still starting is not waited for; it joins once it listens', async () => {
  // Waiting for a late worker would take a minute here: the test would time out.
  const primary = new PrimaryMetrics(100, 60_000);
  const one = new FakeWorker(1, primary);
  const starting = new FakeWorker(2, primary, false);
  starting.silent = true;
  one.requests.add(['A-1'], 2);
  const text = await one.scrape();
  assert.equal(sample(text, 'modelgate_workers{state="answered"}'), 1);
  assert.equal(sample(text, 'modelgate_workers{state="late"}'), 0);
  starting.silent = false;
  starting.listening();
  starting.requests.add(['A-1'], 5);
  assert.equal(sample(await one.scrape(), 'demo_requests_total{model="A-1"}'), 7);
});
