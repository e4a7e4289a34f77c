/**
 * The embedded ledger writer's cost per row: batches of rows as the rig makes them (one key and
 * model; `MIXED=1`: three keys and two models interleaved) at the rig's rates (a 200 ms window at
 * ~10,000 requests/s), written to a store file in a temporary directory as the ledger's thread
 * writes them, with the store as it is and with one thing changed at a time (an index dropped, the
 * checkpoint cadence, the page cache) to show what each costs. Prints microseconds of CPU per row,
 * median of runs (the variants alternated).
 *
 *   node bench/ledger-writer.ts [--batches 40] [--rows 2000] [--runs 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/store/sqlite/database.ts';
import { SqliteLedgerWriter } from '../src/store/sqlite/sqlite-ledger-writer.ts';
import { sampleLedgerRow } from './lib/sample-ledger-rows.ts';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '40' },
    rows: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '5' },
  },
});
const batches = Number(values.batches);
const rowsPerBatch = Number(values.rows);
const runs = Number(values.runs);

const row = sampleLedgerRow({
  mixed: process.env.MIXED !== undefined && process.env.MIXED !== '',
  clockStepMs: 0.1,
  randomTimes: false,
});

export function measure(
  label: string,
  prepare?: (database: ReturnType<typeof openDatabase>) => void,
): number {
  const directory = mkdtempSync(join(tmpdir(), 'ledger-writer-'));
  try {
    const database = openDatabase(join(directory, 'store.db'));
    prepare?.(database);
    const writer = new SqliteLedgerWriter(database);
    const prepared = Array.from({ length: batches }, () =>
      Array.from({ length: rowsPerBatch }, (_, index) => row(index)),
    );
    const start = process.cpuUsage();
    for (const batch of prepared) writer.write(batch);
    const used = process.cpuUsage(start);
    database.close();
    const perRow = (used.user + used.system) / (batches * rowsPerBatch);
    return perRow;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const variants: [string, ((database: ReturnType<typeof openDatabase>) => void) | undefined][] = [
  ['as is', undefined],
  ['no time index', (database) => database.exec('DROP INDEX usage_ledger_time')],
  ['no key index', (database) => database.exec('DROP INDEX usage_ledger_key_time')],
  [
    'no indexes',
    (database) => database.exec('DROP INDEX usage_ledger_time; DROP INDEX usage_ledger_key_time'),
  ],
  ['checkpoint 1000', (database) => database.exec('PRAGMA wal_autocheckpoint = 1000')],
  ['checkpoint 512', (database) => database.exec('PRAGMA wal_autocheckpoint = 512')],
  ['cache 16M', (database) => database.exec('PRAGMA cache_size = -16000')],
];
const results = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (let run = 0; run < runs; run++)
  for (const [name, prepare] of run % 2 === 0 ? variants : [...variants].reverse())
    results.get(name)?.push(measure(name, prepare));
for (const [name, figures] of results) {
  const sorted = [...figures].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(18)} ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} us/row  [${figures.map((f) => f.toFixed(1)).join(' ')}]`,
  );
}
