/**
 * Two small per-answer costs against a base checkout's code, alternated in this one process (median
 * of runs, µs of CPU per call): the request's log line as the logger writes it (built, scrubbed of the
 * rig's four secrets, added to a pending batch like the stderr sink's), and the cost header's
 * `formatUsd`. The base is a checkout's directory (its `src/`), e.g. one made with `git archive`:
 *
 *   node bench/log-and-cost.ts --base /tmp/base-checkout [--runs 9]
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatUsd } from '../src/config/cost.ts';
import { createLogger } from '../src/log/logger.ts';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: { base: { type: 'string' }, runs: { type: 'string', default: '9' } },
});
if (values.base === undefined) throw new Error('--base <checkout directory> is required');
const base = resolve(values.base, 'src');
const runs = Number(values.runs);
const baseLogger = (await import(join(base, 'log/logger.ts'))) as { createLogger: typeof createLogger };
const baseCost = (await import(join(base, 'config/cost.ts'))) as { formatUsd: typeof formatUsd };

function timed(iterations: number, body: (index: number) => unknown): number {
  const start = process.cpuUsage();
  for (let index = 0; index < iterations; index++) body(index);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

function compare(
  name: string,
  iterations: number,
  before: (i: number) => unknown,
  after: (i: number) => unknown,
): void {
  const baseRuns: number[] = [];
  const newRuns: number[] = [];
  timed(iterations, before);
  timed(iterations, after);
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? [before, after] : [after, before];
    const [first, second] = order.map((body) => timed(iterations, body));
    baseRuns.push(run % 2 === 0 ? (first ?? NaN) : (second ?? NaN));
    newRuns.push(run % 2 === 0 ? (second ?? NaN) : (first ?? NaN));
  }
  const [b, n] = [median(baseRuns), median(newRuns)];
  console.log(
    `${name.padEnd(24)} base ${b.toFixed(3)} µs  new ${n.toFixed(3)} µs  (${(n - b).toFixed(3)} µs)`,
  );
  console.log(`  base runs ${baseRuns.map((v) => v.toFixed(3)).join(' ')}`);
  console.log(`  new runs  ${newRuns.map((v) => v.toFixed(3)).join(' ')}`);
}

// The rig's secrets: the client key and the three upstream keys (bench/ab.ts).
const secrets = ['sk-bench-client-key-0000000000', 'sk-mock', 'sk-ant-mock', 'g-mock'];
let pending = '';
const sink = (line: string): void => {
  pending += `${line}\n`;
  if (pending.length >= 65_536) pending = '';
};
const oldLogger = baseLogger.createLogger('info', secrets, sink);
const newLogger = createLogger('info', secrets, sink);
/** The served chat request's fields, in `requestLogFields`' order; a few values vary per request. */
const fields = (i: number): Record<string, unknown> => ({
  requestId: `req_5f0c2b9e8d7a41c3b2e${(100_000 + i).toString(16)}`,
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  ms: Math.round((i % 1000) * 137) / 100,
  model: 'A-3',
  keyId: 'key-static-0',
  deployment: 'A-3',
  upstreamStatus: 200,
  inputTokens: 31,
  outputTokens: 40 + (i % 7),
  cachedTokens: 0,
  costUsd: 0.0000285 + (i % 7) * 0.0000006,
});
compare(
  'request log line',
  200_000,
  (i) => oldLogger.info('request', fields(i)),
  (i) => newLogger.info('request', fields(i)),
);
compare(
  'cost header (formatUsd)',
  1_000_000,
  (i) => baseCost.formatUsd(0.0000285 + (i % 7) * 0.0000006),
  (i) => formatUsd(0.0000285 + (i % 7) * 0.0000006),
);
