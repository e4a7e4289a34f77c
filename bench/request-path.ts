/**
 * The whole chat request path's CPU, a base checkout against this one in ONE process: both
 * gateways started here (each its own modules, store file and ledger thread) on the rig's mock
 * upstream, a client process (outside the measure) sending the same request, and rounds alternating
 * base and new with this process's CPU (all its threads) per request — far steadier on a shared
 * machine than two processes measured minutes apart. The base is a checkout's directory.
 *
 *   node bench/request-path.ts --base /tmp/base-checkout [--model A-3|B-4] [--requests 4000] [--rounds 6]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RigBench, rigChatBody, type InProcessGateway } from './lib/in-process-gateway.ts';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    model: { type: 'string', default: 'A-3' },
    requests: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '6' },
    concurrency: { type: 'string', default: '16' },
  },
});
if (values.base === undefined) throw new Error('--base <checkout directory> is required');
const requests = Number(values.requests);
const here = fileURLToPath(new URL('..', import.meta.url));
const rigBench = await RigBench.open('request-path');
type Gateway = InProcessGateway;

const body = rigChatBody(values.model);
function drive(gateway: Gateway, count: number): Promise<void> {
  return rigBench.drive(gateway, count, body, Number(values.concurrency));
}

/** This process's CPU (every thread: the ledger's too) per request of one round. */
async function round(gateway: Gateway): Promise<number> {
  const before = process.cpuUsage();
  await drive(gateway, requests);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

const targets = [
  { name: 'base', gateway: await rigBench.start(values.base, 'base'), figures: [] as number[] },
  { name: 'new', gateway: await rigBench.start(here, 'new'), figures: [] as number[] },
];
for (const target of targets) await drive(target.gateway, 2000); // warm up: compiled, caches full
for (let index = 0; index < Number(values.rounds); index++)
  for (const target of index % 2 === 0 ? targets : [...targets].reverse())
    target.figures.push(await round(target.gateway));
for (const target of targets)
  console.log(
    `${target.name.padEnd(5)} ${values.model}: ${median(target.figures).toFixed(1)} µs/request [${target.figures.map((figure) => figure.toFixed(1)).join(' ')}]`,
  );
for (const target of targets) await target.gateway.close();
rigBench.close();
