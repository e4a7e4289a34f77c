/**
 * JS heap bytes a chat request allocates on the gateway's main thread, and where: one checkout's
 * gateway started in this process on the rig's mock upstream, a client process (outside the
 * measure) sending the rig's request, and V8's sampling heap profiler counting every allocation,
 * kept or already collected. Allocation per request does not depend on how busy the machine is, so
 * two checkouts measured minutes apart compare fairly (unlike CPU). The ledger's own thread is
 * another isolate and not counted. Last, one more pass counts the promises made per request.
 *
 *   node bench/request-alloc.ts [--checkout .] [--model A-3|B-4] [--stream] [--requests 4000] [--top 25]
 */
import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RigBench, rigChatBody, type InProcessGateway } from './lib/in-process-gateway.ts';

const { values } = parseArgs({
  options: {
    checkout: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    model: { type: 'string', default: 'A-3' },
    stream: { type: 'boolean', default: false },
    requests: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '3' },
    interval: { type: 'string', default: '256' },
    top: { type: 'string', default: '25' },
  },
});
const requests = Number(values.requests);
const rigBench = await RigBench.open('request-alloc');
type Gateway = InProcessGateway;

const body = rigChatBody(values.model, values.stream);
function drive(gateway: Gateway, count: number): Promise<void> {
  return rigBench.drive(gateway, count, body);
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes by allocation site (function, file:line), summed over the whole profile. */
function bySite(root: ProfileNode, sites: Map<string, number>, caller = ''): number {
  const { functionName, url, lineNumber } = root.callFrame;
  const file = url.replace(/^.*\/(src|node_modules)\//, '$1/');
  const here = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  // A builtin or Node's own code (Map, Promise, delete, Buffer...) is named with its caller.
  const site = url === '' || url.startsWith('node:') ? `${here} <- ${caller}` : here;
  if (root.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + root.selfSize);
  let total = root.selfSize;
  for (const child of root.children) total += bySite(child, sites, here);
  return total;
}

const gateway = await rigBench.start(values.checkout, 'gateway');
await drive(gateway, 2000); // warm up: compiled, caches full
const session = new Session();
session.connect();
const perRound: number[] = [];
const sites = new Map<string, number>();
for (let index = 0; index < Number(values.rounds); index++) {
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(values.interval),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await drive(gateway, requests);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
    profile: { head: ProfileNode };
  };
  perRound.push(bySite(profile.head, sites) / requests);
}
const label = `${values.model}${values.stream ? ' stream' : ''}`;
console.log(`${label}: ${perRound.map((bytes) => (bytes / 1024).toFixed(1)).join(' ')} KiB/request (rounds)`);
const rounds = Number(values.rounds) * requests;
for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${(bytes / rounds).toFixed(0).padStart(7)} B  ${site}`);
session.disconnect();
// Promises made on this thread per request (async functions' own included): one counted pass.
let promises = 0;
const counting = createHook({
  init(_id, type) {
    if (type === 'PROMISE') promises++;
  },
});
counting.enable();
await drive(gateway, requests);
counting.disable();
console.log(`${(promises / requests).toFixed(1)} promises/request`);
await gateway.close();
rigBench.close();
