/**
 * The open-loop load generator, one process per cell: `node open-loop-client.ts '<OpenLoopJob JSON>'`
 * prints one OpenLoopResult as JSON. Request i is due at t0 + i / rate whatever happened before it,
 * and its latency is measured from that intended time, so a stalled target shows in the percentiles
 * instead of quietly lowering the offered rate (coordinated omission). A due request takes an idle
 * keep-alive connection, opens a new one when none is idle (up to `maxConnections`), or waits for
 * one (still timed from its intended time). Requests unfinished `graceSeconds` after the window are
 * counted at their elapsed time (a lower bound) and mark the cell saturated.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { Dispatcher } from 'undici';
import { dueCount, intendedSendMs, requestCounts, summarizeLatencies } from './open-loop-math.ts';
import type { OpenLoopJob, OpenLoopResult } from './open-loop-protocol.ts';

const job = JSON.parse(process.argv[2] ?? '{}') as OpenLoopJob;
const counts = requestCounts(job.rate, job.warmupSeconds, job.seconds);
const total = counts.warmup + counts.measured;
const sentAt = new Float64Array(total);
const firstByteAt = new Float64Array(total);
const endAt = new Float64Array(total);
const statusOf = new Uint16Array(total); // 0 = unfinished, 1 = transport error, else HTTP status
const body = Buffer.from(job.body);
const timeoutMs = job.timeoutSeconds * 1000;
const dispatchOptions: Dispatcher.DispatchOptions = {
  path: job.path,
  method: job.method,
  headers: job.headers,
  body,
};

const newClient = (): Client =>
  new Client(job.url, {
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  });

const every: Client[] = [];
const idle: Client[] = [];
const waiting: number[] = [];
let opened = 0;
let inFlight = 0;
let maxInFlight = 0;
let sendsWaited = 0;
let next = 0;
let done = 0;
let startMs = 0;
let timer: NodeJS.Timeout | undefined;
let stopped = false;

function acquire(): Client | undefined {
  const reused = idle.pop(); // LIFO keeps the warm connections warm
  if (reused !== undefined) return reused;
  if (every.length >= job.maxConnections) return undefined;
  const client = newClient();
  every.push(client);
  opened++;
  return client;
}

function start(client: Client, index: number): void {
  sentAt[index] = performance.now();
  inFlight++;
  if (inFlight > maxInFlight) maxInFlight = inFlight;
  client.dispatch(dispatchOptions, {
    onRequestStart: () => undefined,
    onResponseStart: (_controller, statusCode) => {
      statusOf[index] = statusCode;
    },
    onResponseData: () => {
      if (firstByteAt[index] === 0) firstByteAt[index] = performance.now();
    },
    onResponseEnd: () => {
      if (stopped) return;
      endAt[index] = performance.now();
      finish(client);
    },
    onResponseError: () => {
      // After the cut-off the run destroys its connections: those requests stay unfinished.
      if (stopped) return;
      endAt[index] = performance.now();
      statusOf[index] = 1;
      finish(client);
    },
  });
}

function finish(client: Client): void {
  inFlight--;
  done++;
  if (stopped) return;
  const usable = !client.destroyed && !client.closed;
  const position = every.indexOf(client);
  if (!usable && position >= 0) every.splice(position, 1);
  const queued = waiting.shift();
  if (queued !== undefined) {
    const replacement = usable ? client : acquire();
    if (replacement === undefined) waiting.unshift(queued);
    else start(replacement, queued);
  } else if (usable) idle.push(client);
  pump();
}

function pump(): void {
  const due = dueCount(startMs, performance.now(), job.rate, total);
  while (next < due) {
    const client = acquire();
    if (client === undefined) {
      sendsWaited++;
      waiting.push(next++);
    } else start(client, next++);
  }
  if (next >= total || timer !== undefined) return;
  // Node's timers are millisecond-grained: sends leave up to ~1 ms late, the same for every target.
  const wait = Math.max(1, Math.floor(intendedSendMs(startMs, next, job.rate) - performance.now()));
  timer = setTimeout(() => {
    timer = undefined;
    pump();
  }, wait);
}

async function prime(): Promise<void> {
  const clients = Array.from({ length: job.primedConnections }, newClient);
  every.push(...clients);
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          client.dispatch(dispatchOptions, {
            onRequestStart: () => undefined,
            onResponseEnd: () => resolve(),
            onResponseError: () => resolve(),
          });
        }),
    ),
  );
  idle.push(...clients);
}

await prime();
const cpuBefore = process.cpuUsage();
startMs = performance.now() + 5;
const windowStart = intendedSendMs(startMs, counts.warmup, job.rate);
const windowEnd = intendedSendMs(startMs, total, job.rate);
setTimeout(pump, 5);
await new Promise<void>((resolve) => {
  const deadline = windowEnd + job.graceSeconds * 1000;
  const check = (): void => {
    if ((next >= total && done >= total) || performance.now() >= deadline) resolve();
    else setTimeout(check, 5);
  };
  check();
});
stopped = true;
if (timer !== undefined) clearTimeout(timer);
const cutoff = performance.now();
const cpu = process.cpuUsage(cpuBefore);
await Promise.all(every.map((client) => client.destroy().catch(() => undefined)));

const latencies: number[] = [];
const firstBytes: number[] = [];
const sendLags: number[] = [];
let ok = 0;
let errors = 0;
let unfinished = 0;
for (let index = counts.warmup; index < total; index++) {
  const due = intendedSendMs(startMs, index, job.rate);
  if (sentAt[index] !== 0) sendLags.push((sentAt[index] ?? due) - due);
  const status = statusOf[index] ?? 0;
  const end = endAt[index] ?? 0;
  if (end === 0) {
    unfinished++;
    latencies.push(cutoff - due);
    if (job.stream) firstBytes.push((firstByteAt[index] || cutoff) - due);
    continue;
  }
  if (status < 200 || status >= 400) {
    errors++;
    continue;
  }
  ok++;
  latencies.push(end - due);
  if (job.stream) firstBytes.push((firstByteAt[index] || end) - due);
}
const result: OpenLoopResult = {
  rate: job.rate,
  ok,
  errors,
  unfinished,
  saturated: unfinished > 0,
  latency: summarizeLatencies(latencies),
  firstByte: job.stream ? summarizeLatencies(firstBytes) : null,
  sendLag: summarizeLatencies(sendLags),
  connections: { primed: job.primedConnections, opened, maxInFlight, sendsWaited },
  windowMs: windowEnd - windowStart,
  generatorCpuMicros: cpu.user + cpu.system,
};
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
