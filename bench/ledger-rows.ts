/**
 * The ledger row builder alone, in process: `ledgerRows` for the rig's answered request (one
 * attempt, completed) and for a retried one (two attempts), of one or more checkouts alternated;
 * CPU per request, median of rounds. What it stands in for is 0.8 % of the event loop's profile
 * under the rig (issue 25): too little to show in `ab.ts`.
 *
 *   node bench/ledger-rows.ts [--requests 1000000] [--rounds 6] <checkout>...
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { requests: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '6' } },
});
const requests = Number(values.requests);

type LedgerRowsFunction = (...args: unknown[]) => unknown[];

const timeline = {
  receivedAt: 1_000,
  receivedAtMs: Date.now(),
  endedAt: 1_004.5,
  firstByteAt: undefined,
  overheadMs: 0.31,
  elapsed: () => 4.5,
};
const context = { requestId: 'req_4bf92f3577b34da6', surface: 'alpha', traceId: undefined, timeline };
const call = {
  clientId: 'key-static-0',
  signal: new AbortController().signal,
  sink: { started: true },
  surface: { encodeError: () => ({ status: 502 }) },
};
const prepared = { entry: { name: 'A-3', family: 'alpha' }, request: { stream: false } };
const attempt = (answered: boolean, status: number) => ({
  answered,
  startedAt: timeline.receivedAtMs,
  model: 'A-3',
  family: 'alpha',
  upstreamModel: 'gpt-4o-mini',
  deployment: 'A-3',
  status,
  error: answered ? undefined : 'upstream_server_error',
  latencyMs: 1.2,
});
const usage = { inputTokens: 12, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
const answered = { delivered: true, completed: true, error: undefined, records: [attempt(true, 200)] };
const retried = { ...answered, records: [attempt(false, 503), attempt(true, 200)] };
const accounted = { usage, costUsd: 0.0000218, estimated: false };

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const checkouts = await Promise.all(
  positionals.map(async (directory) => {
    const module = (await import(
      pathToFileURL(join(resolve(directory), 'src/usage/ledger-rows.ts')).href
    )) as {
      ledgerRows: LedgerRowsFunction;
    };
    return {
      name: directory,
      ledgerRows: module.ledgerRows,
      answered: [] as number[],
      retried: [] as number[],
    };
  }),
);
let kept: unknown;
for (let round = 0; round < Number(values.rounds); round++) {
  for (const checkout of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
    for (const [result, figures] of [
      [answered, checkout.answered],
      [retried, checkout.retried],
    ] as const) {
      const micros = cpuMicros(() => {
        for (let index = 0; index < requests; index++)
          kept = checkout.ledgerRows(call, prepared, context, result, accounted);
      });
      figures.push((micros * 1000) / requests);
    }
  }
}
if (kept === undefined) throw new Error('nothing built');
const list = (numbers: number[]): string => numbers.map((value) => value.toFixed(0)).join(' ');
for (const { name, answered: one, retried: two } of checkouts)
  console.log(
    `${name}\n  answered ${median(one).toFixed(0)} ns/request [${list(one)}]\n  retried  ${median(two).toFixed(0)} ns/request [${list(two)}]`,
  );
