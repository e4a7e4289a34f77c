/**
 * One attempt from its start to its verdict. It owns the attempt's plan step, its call timers and
 * the ledger record of each upstream call it makes (one, or n for a fan-out), and it is the one
 * place where each thing that can happen to an attempt is written: `send` (a request handed to the
 * transport), `fail` (another attempt may follow, or the error is final) and `answered` (the answer
 * starts reaching the client).
 */
import type { HeaderMap, UpstreamRequest } from '../codecs/codec.ts';
import { readUpstreamError } from '../codecs/shared/upstream-errors.ts';
import { GatewayError } from '../ir/index.ts';
import type { AttemptFailure, AttemptPlan } from '../routing/attempt-plan.ts';
import { isRetryableStatus, isUnhealthyStatus } from '../routing/retry-policy.ts';
import { SseEventTooLarge } from '../sse/parse-sse.ts';
import { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { ResponseTooLarge } from '../upstream/upstream-call.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import type { AfterDispatch } from './admission.ts';
import type { Attempt, StrictDecode } from './attempt.ts';
import type { ChatCall } from './chat-call.ts';
import type { AttemptRecord } from './delivery.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';

/** What the attempts of one request share (one object per request). */
export interface Delivering extends StrictDecode {
  call: ChatCall;
  prepared: PreparedRequest;
  plan: AttemptPlan;
  /**
   * Admission's work for once the first upstream request is on its way (metering a key that is
   * never refused); taken by the first call sent, awaited before any answer starts.
   */
  afterDispatch: AfterDispatch | undefined;
  /** Every upstream call of the request, as each is reported (the `Delivery`'s records). */
  records: AttemptRecord[];
}

export type SendResult = { ok: true; response: UpstreamResponse } | { ok: false; failure: AttemptFailure };

export class AttemptRun {
  readonly attempt: Attempt;
  readonly timers: CallTimers;
  /** One per upstream call: `attempt.calls` of them. */
  readonly records: [AttemptRecord, ...AttemptRecord[]];
  readonly #delivering: Delivering;

  /** The attempt starts: the plan counts it, its timers exist (armed once a request is sent). */
  constructor(delivering: Delivering, attempt: Attempt) {
    this.#delivering = delivering;
    this.attempt = attempt;
    delivering.plan.begin(attempt.step);
    this.timers = new CallTimers(attempt.step.deployment.timeouts, delivering.call.signal);
    this.records = [newRecord(attempt)];
    for (let call = 1; call < attempt.calls; call++) this.records.push(newRecord(attempt));
  }

  get call(): ChatCall {
    return this.#delivering.call;
  }

  get prepared(): PreparedRequest {
    return this.#delivering.prepared;
  }

  /** The records of every upstream call of the request reported so far. */
  get allRecords(): readonly AttemptRecord[] {
    return this.#delivering.records;
  }

  /**
   * Sends one upstream request: a 2xx response, or the failure of an error answer (non-2xx) or of
   * no answer at all. The verdict on a failure is the caller's (`fail`): a fan-out fails once for all.
   */
  async send(request: UpstreamRequest, record: AttemptRecord): Promise<SendResult> {
    const { call } = this.#delivering;
    const { timers } = this;
    const deployment = this.attempt.step.deployment;
    if (deployment.faultHeaders) forwardSimulationHeaders(call.headers, request);
    call.onSending?.(record, request.headers);
    const pending = dispatch(deployment, request, timers.signal);
    // Once the request is on its way: the timer setup and admission's work are not on its path.
    timers.arm();
    const work = this.#delivering.afterDispatch;
    this.#delivering.afterDispatch = undefined;
    const metering = work?.();
    let response: UpstreamResponse;
    try {
      response = await pending;
    } catch (error) {
      if (metering !== undefined) this.#answerHeaders(await metering);
      return { ok: false, failure: failureOf(error, timers) };
    }
    if (metering !== undefined) this.#answerHeaders(await metering);
    record.status = response.status;
    deployment.lastStatus = response.status;
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
    const detail = this.attempt.codec.decodeErrorBody(text);
    const reading = readUpstreamError(response.status, response.headers, detail, Date.now());
    // The operator's log gets the upstream's own words (a 401's too), through the same scrubber.
    if (detail.message !== undefined) record.detail = deployment.scrubber.clean(detail.message);
    const error = deployment.scrubber.scrub(reading.error, response.status);
    const failure = failureOf(error, timers, response.status, reading.retryAfterMs);
    const status = response.status;
    if (status === 401 || status === 403 || detail.credentialsRejected === true)
      failure.credentialsRejected = true;
    return { ok: false, failure };
  }

  /** A failure that is not an error answer (a transport error, a cut or unreadable body), judged. */
  failure(error: unknown): AttemptFailure {
    return failureOf(error, this.timers);
  }

  /**
   * The attempt gave no answer: its records and the plan learn why. Returns when another attempt
   * may follow; throws the error the client gets when not (or when the client left).
   */
  fail(failure: AttemptFailure): void {
    const { call, plan } = this.#delivering;
    const step = this.attempt.step;
    for (const record of this.records) {
      record.error = failure.error.kind;
      record.detail ??= failure.error.message;
      this.#report(record);
    }
    if (call.signal.aborted) {
      plan.abandon(step);
      throw clientGone();
    }
    plan.fail(step, failure);
    if (!failure.retryable) throw failure.error;
  }

  /** The answer starts reaching the client: no more attempts, the deployment is healthy. */
  answered(): void {
    this.#delivering.plan.answered(this.attempt.step);
    for (const record of this.records) {
      record.answered = true;
      record.firstByteMs = this.timers.firstByteMs;
      this.#report(record);
    }
  }

  /** What admission's after-dispatch work found for the answer (a metered key's rate-limit state). */
  #answerHeaders(headers: ResponseHeaders | undefined): void {
    if (headers !== undefined) Object.assign(this.#delivering.call.sink.headers, headers);
  }

  /** A call's record is final: it joins the request's records, and `onAttempt` is told. */
  #report(record: AttemptRecord): void {
    record.latencyMs = record.firstByteMs ?? record.headersMs ?? Math.max(0, Date.now() - record.startedAt);
    this.#delivering.records.push(record);
    this.#delivering.call.onAttempt?.(record);
  }

  /** The answered call is over; `upstreamFailed` when the upstream broke it (not the client). */
  finish(upstreamFailed: boolean): void {
    this.#delivering.plan.finish(this.attempt.step, upstreamFailed);
  }

  /** Always, last: no timer may fire, and a bug's throw must not leave the deployment counting a call in flight. */
  close(): void {
    this.timers.stop();
    this.#delivering.plan.abandon(this.attempt.step);
  }
}

/**
 * Why an attempt gave no answer and whether another may follow: the one place retries are decided.
 * An error answer (non-2xx, `status`) is judged by its status (`retry-policy.ts`: 429, 500, 503
 * and 529 are retried, 5xx count against the deployment) and its wait honoured. Any other
 * failure — no response, a body cut or unreadable, a stream that ended before sending anything —
 * may be retried only while the upstream sent no byte of its accepted (2xx, billable) body, and
 * never for an answer past a size cap: it came whole enough to be billed.
 */
function failureOf(
  error: unknown,
  timers: CallTimers,
  status?: number,
  retryAfterMs?: number,
): AttemptFailure {
  if (status !== undefined) {
    return {
      error: toGatewayError(error),
      retryable: isRetryableStatus(status),
      unhealthy: isUnhealthyStatus(status),
      retryAfterMs,
    };
  }
  const oversized = error instanceof ResponseTooLarge || error instanceof SseEventTooLarge;
  return {
    error: timers.fired ?? toGatewayError(error, timers.signal),
    retryable: timers.waitingForFirstByte && !oversized,
    unhealthy: true,
    retryAfterMs: undefined,
  };
}

/** Hands the request to the transport; a transport that throws instead of rejecting is a rejection too. */
function dispatch(
  deployment: Attempt['step']['deployment'],
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  try {
    return deployment.transport.send(deployment.target.baseUrl, request, signal);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
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
    latencyMs: undefined,
    billed: false,
    answered: false,
    error: undefined,
    detail: undefined,
  };
}

export function clientGone(): GatewayError {
  return new GatewayError('upstream', 'the client disconnected');
}
