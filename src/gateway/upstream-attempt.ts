/**
 * One upstream call of an attempt: handing it to the transport (then arming its timers and
 * starting the request's post-dispatch work), turning a non-2xx answer or a transport failure
 * into a classified failure, and the ledger record of the call.
 */
import type { HeaderMap, UpstreamRequest } from '../families/codec.ts';
import { GatewayError } from '../ir/index.ts';
import type { AttemptFailure, AttemptPlan, Step } from '../routing/attempt-plan.ts';
import { isRetryableStatus, isUnhealthyStatus } from '../routing/retry-policy.ts';
import { readUpstreamError } from '../families/shared/upstream-errors.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { SseEventTooLarge } from '../sse/parse-sse.ts';
import { ResponseTooLarge } from '../upstream/upstream-call.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import type { Attempt } from './attempt.ts';
import type { AttemptRecord, ChatCall } from './chat-call.ts';

export type SendResult = { ok: true; response: UpstreamResponse } | { ok: false; failure: AttemptFailure };

/** Sends one upstream request; a non-2xx answer becomes a failure with the client-safe error. */
export async function sendAttempt(
  call: ChatCall,
  attempt: Attempt,
  request: UpstreamRequest,
  timers: CallTimers,
  record: AttemptRecord,
): Promise<SendResult> {
  const deployment = attempt.step.deployment;
  if (deployment.faultHeaders) forwardSimulationHeaders(call.headers, request);
  call.onSending?.(record, request.headers);
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
  const { error, retryAfterMs } = readUpstreamError(
    response.status,
    response.headers,
    attempt.codec.decodeErrorBody(text),
    Date.now(),
  );
  return {
    ok: false,
    failure: {
      error: deployment.scrubber.scrub(error, response.status),
      retryable: isRetryableStatus(response.status),
      unhealthy: isUnhealthyStatus(response.status),
      retryAfterMs,
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
export function failed(
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

/**
 * A transport failure while reading a 2xx body: retryable only before the upstream's first body
 * byte. An answer past the size cap is never retried: it came whole enough to be billed.
 */
export function bodyFailure(error: unknown, timers: CallTimers, beforeFirstByte: boolean): AttemptFailure {
  const failure = timers.fired ?? toGatewayError(error, timers.signal);
  const retryable =
    beforeFirstByte && !(error instanceof ResponseTooLarge || error instanceof SseEventTooLarge);
  return { error: failure, retryable, unhealthy: true, retryAfterMs: undefined };
}

const simulationHeaders = [
  'x-simulate-error',
  'x-simulate-latency-ms',
  'x-simulate-stream-error-after',
  'x-simulate-stream-cut-after',
] as const;

/**
 * Fault injection for the built-in simulator travels through the gateway; nothing else from the
 * client does, and never to a real upstream (the caller checks): a real server might act on them.
 */
function forwardSimulationHeaders(headers: HeaderMap, request: UpstreamRequest): void {
  for (const name of simulationHeaders) {
    const value = headers[name];
    if (typeof value === 'string') request.headers[name] = value;
  }
}

/** A request with fault-injection headers rehearses a failure: see `AttemptPlan`. */
export function isRehearsal(headers: HeaderMap): boolean {
  for (const name of simulationHeaders) if (headers[name] !== undefined) return true;
  return false;
}

export function newRecord(attempt: Attempt): AttemptRecord {
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

export function clientGone(): GatewayError {
  return new GatewayError('upstream', 'the client disconnected');
}
