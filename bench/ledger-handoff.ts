/**
 * A ledger batch's cost on both threads, in process: what the event loop spends handing a window's
 * rows to the ledger's thread (building the message and `postMessage`'s structured clone) and what
 * the thread spends taking it (the clone's other half) and writing it (inserts, spend, rollups,
 * commit), per row, for one or more checkouts alternated. A `MessageChannel` stands in for the
 * worker's port: `postMessage` serializes on the sending side as it does to a worker, and
 * `receiveMessageOnPort` deserializes on the taking side; each side's CPU is measured alone.
 * A checkout with `src/usage/ledger-columns.ts` hands batches over as its embedded target does
 * (`handOffForm`, `writeColumns`); one without it as row objects (`write`).
 *
 *   node --expose-gc bench/ledger-handoff.ts [--rows 240] [--batches 200] [--runs 6] [--mixed] <checkout>...
 *
 * 240 rows: a 20 ms window at the rig's ~12,000 requests/s; `--mixed`: three keys, two models.
 */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { LedgerRow } from '../src/usage/ledger.ts';
import { sampleLedgerRow } from './lib/sample-ledger-rows.ts';
import { median } from './lib/stats.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rows: { type: 'string', default: '240' },
    batches: { type: 'string', default: '200' },
    runs: { type: 'string', default: '6' },
    mixed: { type: 'boolean', default: false },
  },
});
const rowsPerBatch = Number(values.rows);
const batches = Number(values.batches);
const row = sampleLedgerRow({ mixed: values.mixed, clockStepMs: 0.08, randomTimes: true });

interface Writer {
  write(batch: readonly LedgerRow[]): void;
  writeColumns?(columns: unknown, once: boolean): void;
}
interface Checkout {
  name: string;
  openDatabase: (path: string) => { close(): void };
  newWriter: (database: unknown) => Writer;
  /** The message the event loop posts for a batch, and what the thread does with it. */
  form: (rows: LedgerRow[]) => unknown;
  take: (writer: Writer, message: unknown) => void;
}

async function load(directory: string): Promise<Checkout> {
  const module = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(join(directory, path)).href)) as T;
  const { openDatabase } = await module<{ openDatabase: Checkout['openDatabase'] }>(
    'src/store/sqlite/database.ts',
  );
  const { SqliteLedgerWriter } = await module<{ SqliteLedgerWriter: new (database: unknown) => Writer }>(
    'src/store/sqlite/sqlite-ledger-writer.ts',
  );
  const newWriter = (database: unknown): Writer => new SqliteLedgerWriter(database);
  if (!existsSync(join(directory, 'src/usage/ledger-columns.ts')))
    return {
      name: directory,
      openDatabase,
      newWriter,
      form: (rows) => rows,
      take: (writer, message) => writer.write(message as LedgerRow[]),
    };
  const columns = await module<{
    handOffForm: (rows: LedgerRow[], takesColumns: boolean) => { columns?: unknown; rows?: LedgerRow[] };
    fromColumnsMessage: (message: unknown) => unknown;
  }>('src/usage/ledger-columns.ts');
  return {
    name: directory,
    openDatabase,
    newWriter,
    form: (rows) => columns.handOffForm(rows, true),
    take: (writer, message) => {
      const form = message as { columns?: unknown; rows?: LedgerRow[] };
      if (form.columns === undefined) writer.write(form.rows as LedgerRow[]);
      else writer.writeColumns?.(columns.fromColumnsMessage(form.columns), false);
    },
  };
}

const collect = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** µs per row on each side. */
function measure(checkout: Checkout, prepared: LedgerRow[][]): { main: number; thread: number } {
  const directory = mkdtempSync(join(tmpdir(), 'ledger-handoff-'));
  const { port1, port2 } = new MessageChannel();
  try {
    const database = checkout.openDatabase(join(directory, 'store.db'));
    const writer = checkout.newWriter(database);
    // Each side starts on an empty young generation (run with --expose-gc): the previous
    // measure's garbage is not collected on this one's time.
    collect();
    const main = cpuMicros(() => {
      for (const rows of prepared) port1.postMessage(checkout.form(rows));
    });
    collect();
    const thread = cpuMicros(() => {
      for (
        let received = receiveMessageOnPort(port2);
        received !== undefined;
        received = receiveMessageOnPort(port2)
      )
        checkout.take(writer, received.message);
    });
    database.close();
    const rows = prepared.length * rowsPerBatch;
    return { main: main / rows, thread: thread / rows };
  } finally {
    port1.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const checkouts = await Promise.all(positionals.map((directory) => load(resolve(directory))));
const figures = new Map(
  checkouts.map((checkout) => [checkout, { main: [] as number[], thread: [] as number[] }]),
);
for (let run = 0; run < Number(values.runs); run++) {
  const prepared = Array.from({ length: batches }, () =>
    Array.from({ length: rowsPerBatch }, (_, index) => row(index)),
  );
  for (const checkout of run % 2 === 0 ? checkouts : [...checkouts].reverse()) {
    const { main, thread } = measure(checkout, prepared);
    figures.get(checkout)?.main.push(main);
    figures.get(checkout)?.thread.push(thread);
  }
}
const list = (numbers: number[]): string => numbers.map((value) => value.toFixed(2)).join(' ');
for (const [checkout, { main, thread }] of figures) {
  const total = main.map((value, index) => value + (thread[index] ?? 0));
  console.log(checkout.name);
  console.log(`  event loop   ${median(main).toFixed(2)} µs/row  [${list(main)}]`);
  console.log(`  ledger thread ${median(thread).toFixed(2)} µs/row  [${list(thread)}]`);
  console.log(`  both         ${median(total).toFixed(2)} µs/row  [${list(total)}]`);
}
