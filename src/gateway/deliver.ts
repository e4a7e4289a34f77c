/**
 * Delivery: call the upstream for a prepared request and answer the client in the surface's
 * shape — JSON or a piped stream, translated or passed through, one call or an `n` fan-out.
 *
 * Attempts follow the model's `AttemptPlan` (deployments, retries, fallbacks). An attempt may be
 * followed by another only while nothing reached the client and the upstream sent no body byte.
 * Throws a `GatewayError` when nothing was sent to the client; once an answer has started,
 * failures end it in-band and are reported in the returned `Delivery`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ModelEntry } from '../config/catalog.ts';
import type { HeaderMap, UpstreamRequest } from '../families/codec.ts';
import { GatewayError, isJsonObject, type Usage } from '../ir/index.ts';
import { AttemptPlan, type AttemptFailure, type Step } from '../routing/attempt-plan.ts';
import type { ModelRoute } from '../routing/deployment.ts';
import { isRetryableStatus, isUnhealthyStatus, retryAfterMs } from '../routing/retry-policy.ts';
import { costUsd, formatUsd } from '../usage/cost.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { attemptFor, type Attempt, type StrictDecode } from './attempt.ts';
import type { AttemptRecord, ChatCall } from './chat-call.ts';
import { decodeContext, parseUpstreamJson, readBodyText } from './decode-context.ts';
import { fanOutResponse, fanOutStream } from './fan-out.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';
import {
  scrubSecret,
  streamPassThrough,
  streamTranslated,
  type StreamControl,
  type StreamOutcome,
} from './stream-pipeline.ts';

export interface Delivery {
  stream: boolean;
  /** What the upstream reported (for a stream: up to where it stopped). */
  usage: Usage | undefined;
  costUsd: number | undefined;
  /** The client got the whole answer. */
  completed: boolean;
  /** Why an answer that had started did not complete. */
  error: GatewayError | undefined;
  /** Catalog name of the model that answered (a fallback's when the model's deployments failed). */
  servedBy: string;
  /** Upstream calls made for this request (retries and fallbacks included; a fan-out counts once). */
  attempts: number;
}

const costHeader = 'x-modelgate-cost-usd';
const servedByHeader = 'x-modelgate-served-by';

type SendResult = { ok: true; response: UpstreamResponse } | { ok: false; failure: AttemptFailure };

export async function deliver(
  call: ChatCall,
  prepared: PreparedRequest,
  route: ModelRoute,
): Promise<Delivery> {
  const plan = new AttemptPlan(route, route.retry, route.clock, isRehearsal(call.headers));
  const strict: StrictDecode = { request: undefined };
  for (;;) {
    const step = plan.next();
    if (step === undefined) throw plan.finalError();
    if (step.waitMs > 0 && !(await pause(step.waitMs, call.signal))) throw clientGone();
    const attempt = attemptFor(call, prepared, step, strict);
    if (attempt instanceof GatewayError) {
      plan.skipModel(attempt);
      continue;
    }
    const delivery = await runAttempt(call, prepared, plan, attempt);
    if (delivery !== undefined) return delivery;
  }
}

/** One attempt; undefined when it failed in a way that allows another. */
async function runAttempt(
  call: ChatCall,
  prepared: PreparedRequest,
  plan: AttemptPlan,
  attempt: Attempt,
): Promise<Delivery | undefined> {
  const { step, request, upstreamRequest } = attempt;
  plan.begin(step);
  const timers = new CallTimers(step.deployment.timeouts, call.signal);
  try {
    if (attempt.calls > 1) return await fanOut(call, prepared, plan, attempt, timers);
    const record = newRecord(attempt);
    const sent = await send(call, attempt, upstreamRequest, timers, record);
    if (!sent.ok) {
      failed(call, plan, step, sent.failure, [record]);
      return undefined;
    }
    const headers = warningHeaders(attempt.notes, upstreamRequest.warnings);
    if (request.stream)
      return await answerStream(call, prepared, plan, attempt, sent.response, timers, record, headers);
    return await answerJson(call, prepared, plan, attempt, sent.response, timers, record, headers);
  } finally {
    timers.stop();
    // An unexpected throw (a bug) must not leave the deployment counting a call in flight.
    plan.abandon(step);
  }
}

/** Sends one upstream request; a non-2xx answer becomes a failure with the client-safe error. */
async function send(
  call: ChatCall,
  attempt: Attempt,
  request: UpstreamRequest,
  timers: CallTimers,
  record: AttemptRecord,
): Promise<SendResult> {
  forwardSimulationHeaders(call.headers, request);
  const deployment = attempt.step.deployment;
  let response: UpstreamResponse;
  const pending = dispatch(deployment, request, timers.signal);
  // Once the request is on its way: the timer setup and the metering are not on its path.
  timers.arm();
  const metering = takeDispatchedWork(call);
  try {
    response = await pending;
  } catch (error) {
    if (metering !== undefined) await metering;
    // Nothing came back: a connection failure or a first-byte timeout, worth another attempt.
    const failure = timers.fired ?? toGatewayError(error, timers.signal);
    return {
      ok: false,
      failure: { error: failure, retryable: true, unhealthy: true, retryAfterMs: undefined },
    };
  }
  if (metering !== undefined) await metering;
  record.status = response.status;
  record.headersMs = performance.now() - timers.startedAt;
  if (response.status >= 200 && response.status < 300) {
    record.billed = true;
    return { ok: true, response };
  }
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The error body is only a detail: the status alone still maps.
  }
  const error = scrubSecret(
    attempt.codec.decodeError(response.status, text, response.headers),
    deployment.target.apiKey,
  );
  return {
    ok: false,
    failure: {
      error,
      retryable: isRetryableStatus(response.status),
      unhealthy: isUnhealthyStatus(response.status),
      retryAfterMs: retryAfterMs(response.headers, Date.now()),
    },
  };
}

/** Hands the request to the transport; a transport that throws instead of rejecting is a rejection too. */
function dispatch(
  deployment: Step['deployment'],
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  try {
    return deployment.transport.send(deployment.target.baseUrl, request, signal);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The request's `onDispatched` work, started once (by the first upstream call). */
function takeDispatchedWork(call: ChatCall): Promise<void> | undefined {
  const work = call.onDispatched;
  if (work === undefined) return undefined;
  call.onDispatched = undefined;
  return work();
}

/** An attempt gave no answer: another may follow (undefined), or the error is final (thrown). */
function failed(
  call: ChatCall,
  plan: AttemptPlan,
  step: Step,
  failure: AttemptFailure,
  records: AttemptRecord[],
): void {
  for (const record of records) {
    record.error = failure.error.kind;
    call.onAttempt?.(record);
  }
  if (call.signal.aborted) {
    plan.abandon(step);
    throw clientGone();
  }
  plan.fail(step, failure);
  if (!failure.retryable) throw failure.error;
}

/** A transport failure while reading a 2xx body: retryable only before the upstream's first body byte. */
function bodyFailure(error: unknown, timers: CallTimers, beforeFirstByte: boolean): AttemptFailure {
  const failure = timers.fired ?? toGatewayError(error, timers.signal);
  return { error: failure, retryable: beforeFirstByte, unhealthy: true, retryAfterMs: undefined };
}

async function answerJson(
  call: ChatCall,
  prepared: PreparedRequest,
  plan: AttemptPlan,
  attempt: Attempt,
  response: UpstreamResponse,
  timers: CallTimers,
  record: AttemptRecord,
  headers: ResponseHeaders,
): Promise<Delivery | undefined> {
  const { step, codec, entry } = attempt;
  let text: string;
  try {
    text = await readBodyText(response, timers);
  } catch (error) {
    response.cancel();
    failed(call, plan, step, bodyFailure(error, timers, timers.waitingForFirstByte), [record]);
    return undefined;
  }
  let upstreamBody: unknown;
  let decoded;
  try {
    upstreamBody = parseUpstreamJson(text);
    decoded = codec.decodeResponse(upstreamBody, decodeContext);
  } catch (error) {
    const unreadable =
      error instanceof GatewayError
        ? error
        : new GatewayError('upstream', 'the upstream sent an answer the gateway cannot read', {
            cause: error,
          });
    // The upstream answered (and billed): another call would bill again.
    failed(
      call,
      plan,
      step,
      { error: unreadable, retryable: false, unhealthy: true, retryAfterMs: undefined },
      [record],
    );
    return undefined;
  }
  answered(call, plan, step, record, timers);
  plan.finish(step, false);
  const context = prepared.context;
  const body =
    attempt.passThrough && isJsonObject(upstreamBody)
      ? call.surface.passThrough.rewriteResponse(upstreamBody, context)
      : call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  const cost = costUsd(decoded.usage, entry.pricing);
  call.sink.headers[servedByHeader] = entry.name;
  call.sink.sendJson(200, JSON.stringify(body), { ...headers, [costHeader]: formatUsd(cost) });
  return {
    stream: false,
    usage: decoded.usage,
    costUsd: cost,
    completed: true,
    error: undefined,
    servedBy: entry.name,
    attempts: plan.attempts,
  };
}

function answered(
  call: ChatCall,
  plan: AttemptPlan,
  step: Step,
  record: AttemptRecord,
  timers: CallTimers,
): void {
  plan.answered(step);
  record.answered = true;
  record.firstByteMs = timers.firstByteMs;
  call.onAttempt?.(record);
}

async function answerStream(
  call: ChatCall,
  prepared: PreparedRequest,
  plan: AttemptPlan,
  attempt: Attempt,
  response: UpstreamResponse,
  timers: CallTimers,
  record: AttemptRecord,
  headers: ResponseHeaders,
): Promise<Delivery | undefined> {
  const { step, codec, entry } = attempt;
  const deployment = step.deployment;
  const control: StreamControl = {
    sink: call.sink,
    signal: call.signal,
    timers,
    begin: () => {
      answered(call, plan, step, record, timers);
      call.sink.headers[servedByHeader] = entry.name;
      call.sink.startStream(headers, [costHeader]);
    },
  };
  const stream = {
    surface: call.surface,
    decoder: codec.createStreamDecoder(decodeContext),
    context: prepared.context,
    secret: deployment.target.apiKey,
  };
  const outcome = attempt.passThrough
    ? await streamPassThrough({ ...stream, upstreamModel: deployment.target.model }, response, control)
    : await streamTranslated(stream, response, control);
  if (!outcome.started) {
    const error = outcome.error ?? new GatewayError('upstream', 'the upstream stream ended without data');
    failed(call, plan, step, bodyFailure(error, timers, timers.firstByteMs === undefined), [record]);
    return undefined;
  }
  plan.finish(step, outcome.error !== undefined && !call.signal.aborted);
  return endStream(call, entry, outcome, plan.attempts);
}

const simulationHeaders = [
  'x-simulate-error',
  'x-simulate-latency-ms',
  'x-simulate-stream-error-after',
  'x-simulate-stream-cut-after',
] as const;

/** Fault injection for the simulator travels through the gateway; nothing else from the client does. */
function forwardSimulationHeaders(headers: HeaderMap, request: UpstreamRequest): void {
  for (const name of simulationHeaders) {
    const value = headers[name];
    if (typeof value === 'string') request.headers[name] = value;
  }
}

/** A request with fault-injection headers rehearses a failure: see `AttemptPlan`. */
function isRehearsal(headers: HeaderMap): boolean {
  for (const name of simulationHeaders) if (headers[name] !== undefined) return true;
  return false;
}

export function warningHeaders(
  notes: readonly string[] | undefined,
  warnings: readonly string[],
): ResponseHeaders {
  const all = notes === undefined ? warnings : [...notes, ...warnings];
  if (all.length === 0) return {};
  // RFC 7234 warn-code 299: "miscellaneous persistent warning"; quotes inside are escaped.
  return { warning: all.map((warning) => `299 modelgate "${warning.replace(/["\\]/g, '\\$&')}"`) };
}

function endStream(call: ChatCall, entry: ModelEntry, outcome: StreamOutcome, attempts: number): Delivery {
  const cost = outcome.usage === undefined ? undefined : costUsd(outcome.usage, entry.pricing);
  call.sink.end(cost === undefined ? undefined : { [costHeader]: formatUsd(cost) });
  return {
    stream: true,
    usage: outcome.usage,
    costUsd: cost,
    completed: outcome.completed,
    error: outcome.error,
    servedBy: entry.name,
    attempts,
  };
}

function newRecord(attempt: Attempt): AttemptRecord {
  const deployment = attempt.step.deployment;
  return {
    model: attempt.entry.name,
    family: deployment.family,
    upstreamModel: deployment.target.model,
    deployment: deployment.id,
    status: 0,
    startedAt: Date.now(),
    headersMs: undefined,
    firstByteMs: undefined,
    billed: false,
    answered: false,
    error: undefined,
  };
}

function clientGone(): GatewayError {
  return new GatewayError('upstream', 'the client disconnected');
}

/** Waits `ms`; false when the client left meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** `n` candidates from a family that returns one per call (B): n calls, one attempt. */
async function fanOut(
  call: ChatCall,
  prepared: PreparedRequest,
  plan: AttemptPlan,
  attempt: Attempt,
  timers: CallTimers,
): Promise<Delivery | undefined> {
  const { step, codec, entry, upstreamRequest } = attempt;
  const candidates = attempt.calls;
  const { request, context } = prepared;
  const records = Array.from({ length: candidates }, () => newRecord(attempt));
  const sent = await Promise.all(
    records.map((record) =>
      send(call, attempt, { ...upstreamRequest, headers: { ...upstreamRequest.headers } }, timers, record),
    ),
  );
  const responses = sent.flatMap((result) => (result.ok ? [result.response] : []));
  const failure = sent.find((result) => !result.ok);
  if (failure?.ok === false) {
    for (const response of responses) response.cancel();
    failed(call, plan, step, failure.failure, records);
    return undefined;
  }
  const notes = [...(attempt.notes ?? []), `n=${candidates} is served by ${candidates} upstream calls`];
  const headers = warningHeaders(notes, upstreamRequest.warnings);
  const secret = step.deployment.target.apiKey;
  if (request.stream) {
    const control: StreamControl = {
      sink: call.sink,
      signal: call.signal,
      timers,
      begin: () => {
        plan.answered(step);
        for (const record of records) {
          record.answered = true;
          record.firstByteMs = timers.firstByteMs;
          call.onAttempt?.(record);
        }
        call.sink.headers[servedByHeader] = entry.name;
        call.sink.startStream(headers, [costHeader]);
      },
    };
    const outcome = await fanOutStream(call.surface, codec, responses, context, control, secret);
    if (!outcome.started) control.begin();
    plan.finish(step, outcome.error !== undefined && !call.signal.aborted);
    return endStream(call, entry, outcome, plan.attempts);
  }
  let decoded;
  try {
    decoded = await fanOutResponse(codec, responses, timers);
  } catch (error) {
    for (const response of responses) response.cancel();
    const failure = bodyFailure(error, timers, timers.waitingForFirstByte);
    failed(call, plan, step, failure, records);
    return undefined;
  }
  plan.answered(step);
  plan.finish(step, false);
  for (const record of records) {
    record.answered = true;
    record.firstByteMs = timers.firstByteMs;
    call.onAttempt?.(record);
  }
  const cost = costUsd(decoded.usage, entry.pricing);
  const body = call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  call.sink.headers[servedByHeader] = entry.name;
  call.sink.sendJson(200, JSON.stringify(body), { ...headers, [costHeader]: formatUsd(cost) });
  return {
    stream: false,
    usage: decoded.usage,
    costUsd: cost,
    completed: true,
    error: undefined,
    servedBy: entry.name,
    attempts: plan.attempts,
  };
}
