/**
 * Per-request fixed costs on the common chat path, each measured against the base checkout's code in
 * this one process (base and new alternated, median of runs): the request's log line (fields and
 * the logger), the prompt's token count (admission's estimate), the handler's promise chain, a
 * response's 'close' listeners, a JSON answer's call timers and a request's prompt counter.
 * The base is a checkout's directory (its `src/`), e.g. one made with `git archive`:
 *
 *   node bench/fixed-costs.ts --base /tmp/base-checkout [--runs 9]
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AttemptRecord } from '../src/gateway/delivery.ts';
import { MemoryRateLimitStore } from '../src/limits/memory-rate-limit-store.ts';
import { promptTokensOf } from '../src/gateway/validate-request.ts';
import type { ChatRequest } from '../src/ir/index.ts';
import { InFlight } from '../src/http/in-flight.ts';
import { RateLimiter } from '../src/limits/rate-limiter.ts';
import { abortSignalFor } from '../src/server/chat-body.ts';
import { KeySlots } from '../src/server/key-slots.ts';
import { CallTimers } from '../src/upstream/timers.ts';
import { createLogger } from '../src/log/logger.ts';
import type { ChatEnding } from '../src/server/chat-end.ts';
import type { Exchange } from '../src/server/exchange.ts';
import { requestLogFields } from '../src/server/request-log.ts';
import { PromptTokens } from '../src/tokenizer/prompt-tokens.ts';
import { RequestTimeline } from '../src/usage/request-timeline.ts';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: { base: { type: 'string' }, runs: { type: 'string', default: '9' } },
});
if (values.base === undefined) throw new Error('--base <checkout directory> is required');
const base = resolve(values.base, 'src');
const runs = Number(values.runs);

type ChatLogFields = (
  context: Exchange['context'],
  ending: ChatEnding | undefined,
) => Record<string, unknown>;
const baseLog = (await import(join(base, 'server/request-log.ts'))) as { chatLogFields: ChatLogFields };
const baseAnswers = (await import(join(base, 'server/answers.ts'))) as {
  pathOf: (url: string | undefined) => string;
};
const baseTokens = (await import(join(base, 'tokenizer/prompt-tokens.ts'))) as {
  PromptTokens: typeof PromptTokens;
};
const baseLimiter = (await import(join(base, 'limits/rate-limiter.ts'))) as {
  RateLimiter: typeof RateLimiter;
};
const baseStore = (await import(join(base, 'limits/memory-rate-limit-store.ts'))) as {
  MemoryRateLimitStore: typeof MemoryRateLimitStore;
};
const baseSlots = (await import(join(base, 'server/key-slots.ts'))) as { KeySlots: typeof KeySlots };
// The base's signal keeps its controllers in a Set (this checkout: an `InFlight` list).
const baseChatBody = (await import(join(base, 'server/chat-body.ts'))) as {
  abortSignalFor: (response: ServerResponse, controllers: Set<AbortController>) => AbortSignal;
};
const baseTimers = (await import(join(base, 'upstream/timers.ts'))) as { CallTimers: typeof CallTimers };
const baseValidate = (await import(join(base, 'gateway/validate-request.ts'))) as {
  promptTokensOf: typeof promptTokensOf;
};

/** Microseconds per call of `body`, `iterations` times. */
async function timed(iterations: number, body: (index: number) => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < iterations; index++) {
    const result = body(index);
    if (result instanceof Promise) await result;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

async function compare(
  name: string,
  iterations: number,
  before: (i: number) => unknown,
  after: (i: number) => unknown,
): Promise<void> {
  const baseRuns: number[] = [];
  const newRuns: number[] = [];
  await timed(iterations, before);
  await timed(iterations, after);
  for (let run = 0; run < runs; run++) {
    if (run % 2 === 0) {
      baseRuns.push(await timed(iterations, before));
      newRuns.push(await timed(iterations, after));
    } else {
      newRuns.push(await timed(iterations, after));
      baseRuns.push(await timed(iterations, before));
    }
  }
  const [b, n] = [median(baseRuns), median(newRuns)];
  console.log(
    `${name.padEnd(28)} base ${b.toFixed(3)} µs  new ${n.toFixed(3)} µs  (${(n - b).toFixed(3)} µs)`,
  );
}

// --- the request's log line: a served chat request, written by a logger whose output goes nowhere.
const logger = createLogger(
  'info',
  ['sk-bench-client-key-0000000000', 'sk-mock', 'sk-ant-mock', 'g-mock'],
  () => undefined,
);
const record: AttemptRecord = {
  model: 'A-3',
  family: 'alpha',
  upstreamModel: 'gpt-4o-mini',
  deployment: 'A-3',
  status: 200,
  startedAt: Date.now(),
  headersMs: 1,
  firstByteMs: 1,
  latencyMs: 1.2,
  billed: true,
  answered: true,
  error: undefined,
};
const timeline = new RequestTimeline();
timeline.attempts.push({ record, sentAt: 0, endedAt: 1 });
const exchange = {
  request: { method: 'POST', url: '/v1/chat/completions' },
  response: { statusCode: 200 },
  requestId: 'req_5f0c2b9e8d7a41c3b2e1f0a9',
  timeline,
  pathname: '/v1/chat/completions',
  context: { requestId: 'req_5f0c2b9e8d7a41c3b2e1f0a9', surface: 'alpha', timeline, model: 'A-3' },
  ending: {
    status: 200,
    errorKind: undefined,
    keyId: 'key-static-0',
    body: undefined,
    countTokens: false,
    delivery: {
      servedBy: 'A-3',
      usage: { inputTokens: 31, outputTokens: 40, cacheReadTokens: 0 },
      costUsd: 0.0000285,
    },
  },
} as unknown as Exchange;
await compare(
  'request log line',
  200_000,
  () => {
    const traceId = exchange.context?.traceId;
    logger.info('request', {
      requestId: exchange.requestId,
      method: exchange.request.method,
      path: baseAnswers.pathOf(exchange.request.url),
      status: exchange.response.statusCode,
      ms: Math.round(exchange.timeline.elapsed() * 100) / 100,
      ...(traceId === undefined ? {} : { traceId }),
      ...baseLog.chatLogFields(exchange.context, exchange.ending),
    });
  },
  () => logger.info('request', requestLogFields(exchange)),
);

// --- the prompt's count (admission's estimate): the rig's prompt, remembered after its first count.
const texts = [
  'You are a helpful assistant. Answer briefly.',
  'Summarise in one sentence why HTTP keep-alive matters for API gateways that proxy LLM requests.',
];
await compare(
  'prompt count (remembered)',
  200_000,
  () => new baseTokens.PromptTokens(texts).count(),
  () => new PromptTokens(texts).count(),
);
await compare(
  'prompt count (new text)',
  20_000,
  (i) => new baseTokens.PromptTokens([`${i} ${texts[1]}`]).count(),
  (i) => new PromptTokens([`${i} ${texts[1]}`]).count(),
);

// --- the rate limits' draw and reconciliation on the embedded store (limits nothing reaches).
const limits = { alpha: { requestsPerMinute: 1e9, tokensPerMinute: 1e12 } };
const limitedKey = { id: 'key-static-0', rpm: undefined, tpm: undefined };
const before = new baseLimiter.RateLimiter(new baseStore.MemoryRateLimitStore(), limits);
const after = new RateLimiter(new MemoryRateLimitStore(), limits);
const reconcile = (limiter: RateLimiter, now: number): void => {
  const draw = limiter.reconciliation(limitedKey, 'alpha', 95, 71);
  if (draw !== undefined && !limiter.adjustNow(draw, now)) void limiter.adjust(draw, now);
};
await compare(
  'rate limits: draw + adjust',
  200_000,
  async (i) => {
    const now = 1_800_000_000_000 + i;
    await before.acquire(limitedKey, 'alpha', 95, now);
    const draw = before.reconciliation(limitedKey, 'alpha', 95, 71);
    if (draw !== undefined) before.adjust(draw, now).catch(() => undefined);
  },
  (i) => {
    const now = 1_800_000_000_000 + i;
    after.acquireNow(limitedKey, 'alpha', 95, now);
    reconcile(after, now);
  },
);

// --- the handler's chain around the route: `.catch().finally()` against one async function.
const route = (): Promise<void> => Promise.resolve();
let settled = 0;
await compare(
  'handler promise chain',
  200_000,
  () =>
    route()
      .catch(() => undefined)
      .finally(() => {
        settled++;
      }),
  async () => {
    try {
      await route();
    } catch {
      settled--;
    } finally {
      settled++;
    }
  },
);
if (settled < 0) console.log('never: the routes do not throw');

// --- a chat response's 'close' listeners: the server's in-flight count, the key's fair slot and the
// request's abort signal, added while it is served and run once when it closes.
const inFlightRelease = (): void => undefined;
// Each checkout's own signal with its own container of in-flight controllers (a Set before the
// fourth session, an `InFlight` list since).
const baseControllers = new Set<AbortController>();
const controllers = new InFlight<AbortController>();
const closing = (slots: KeySlots, signalFor: (response: ServerResponse) => AbortSignal): void => {
  const response = Object.assign(new EventEmitter(), { writableFinished: true, destroyed: false });
  response.on('close', inFlightRelease);
  slots.take('key-static-0', response as unknown as ServerResponse);
  signalFor(response as unknown as ServerResponse);
  response.emit('close');
};
const slotsBefore = new baseSlots.KeySlots(64);
const slotsAfter = new KeySlots(64);
await compare(
  "response 'close' listeners",
  200_000,
  () => closing(slotsBefore, (response) => baseChatBody.abortSignalFor(response, baseControllers)),
  () => closing(slotsAfter, (response) => abortSignalFor(response, controllers)),
);

// --- a JSON answer's call timers: armed when sent, the whole body read, stopped.
const timeouts = { connectMs: 10_000, firstByteMs: 60_000, idleMs: 60_000 };
const clientSignal = new AbortController().signal;
await compare(
  'call timers, JSON answer',
  200_000,
  () => {
    const timers = new baseTimers.CallTimers(timeouts, clientSignal);
    timers.arm();
    timers.chunk();
    timers.stop();
  },
  () => {
    const timers = new CallTimers(timeouts, clientSignal);
    timers.arm();
    timers.complete();
    timers.stop();
  },
);

// --- a request's prompt counter: made when the request is prepared, found again by admission's estimate.
const chatRequest = (): ChatRequest =>
  ({
    model: 'A-3',
    system: [{ type: 'text', text: texts[0] }],
    messages: [{ role: 'user', content: [{ type: 'text', text: texts[1] }] }],
    tools: [],
    sampling: { maxOutputTokens: 64 },
    stream: false,
  }) as unknown as ChatRequest;
await compare(
  'prompt counter of a request',
  200_000,
  () => {
    const request = chatRequest();
    baseValidate.promptTokensOf(request);
    return baseValidate.promptTokensOf(request);
  },
  () => {
    const request = chatRequest();
    promptTokensOf(request);
    return promptTokensOf(request);
  },
);
