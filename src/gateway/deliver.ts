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
import { hasPassThrough } from '../families/codec.ts';
import { GatewayError, isJsonObject, type Usage } from '../ir/index.ts';
import { AttemptPlan, type Step } from '../routing/attempt-plan.ts';
import type { ModelRoute } from '../routing/deployment.ts';
import { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { costHeader, endStream, sendJsonAnswer, servedByHeader, warningHeaders } from './answer-parts.ts';
import { attemptFor, type Attempt, type StrictDecode } from './attempt.ts';
import type { AttemptRecord, ChatCall } from './chat-call.ts';
import { decodeContext, parseUpstreamJson, readBodyText } from './decode-context.ts';
import { fanOutAttempt } from './fan-out.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';
import { streamPassThrough, streamTranslated, type StreamControl } from './stream-pipeline.ts';
import { bodyFailure, clientGone, failed, isRehearsal, newRecord, sendAttempt } from './upstream-attempt.ts';

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
    const attempt = await attemptFor(call, prepared, step, strict);
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
    if (attempt.calls > 1) return await fanOutAttempt(call, prepared, plan, attempt, timers);
    const record = newRecord(attempt);
    const sent = await sendAttempt(call, attempt, upstreamRequest, timers, record);
    if (!sent.ok) {
      failed(call, plan, step, sent.failure, [record]);
      return undefined;
    }
    const headers = warningHeaders(attempt.notes, upstreamRequest.warnings);
    const answering = { call, prepared, plan, attempt, response: sent.response, timers, record, headers };
    return await (request.stream ? answerStream(answering) : answerJson(answering));
  } finally {
    timers.stop();
    // An unexpected throw (a bug) must not leave the deployment counting a call in flight.
    plan.abandon(step);
  }
}

/** An attempt whose upstream answered 2xx, about to answer the client. */
interface Answering {
  call: ChatCall;
  prepared: PreparedRequest;
  plan: AttemptPlan;
  attempt: Attempt;
  response: UpstreamResponse;
  timers: CallTimers;
  record: AttemptRecord;
  headers: ResponseHeaders;
}

async function answerJson(answering: Answering): Promise<Delivery | undefined> {
  const { call, prepared, plan, attempt, response, timers, record, headers } = answering;
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
  const passThrough = attempt.passThrough ? call.surface.passThrough : undefined;
  const body =
    passThrough !== undefined && isJsonObject(upstreamBody)
      ? passThrough.rewriteResponse(upstreamBody, context)
      : call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  return sendJsonAnswer(call, entry, body, decoded.usage, headers, plan.attempts);
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

async function answerStream(answering: Answering): Promise<Delivery | undefined> {
  const { call, prepared, plan, attempt, response, timers, record, headers } = answering;
  const { step, codec, entry } = attempt;
  const deployment = step.deployment;
  const control: StreamControl = {
    sink: call.sink,
    signal: call.signal,
    timers,
    maxEventBytes: deployment.limits.maxEventBytes,
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
    scrubber: deployment.scrubber,
  };
  const surface = call.surface;
  const outcome =
    attempt.passThrough && hasPassThrough(surface)
      ? await streamPassThrough({ ...stream, surface }, response, control)
      : await streamTranslated(stream, response, control);
  if (!outcome.started) {
    const error = outcome.error ?? new GatewayError('upstream', 'the upstream stream ended without data');
    failed(call, plan, step, bodyFailure(error, timers, timers.firstByteMs === undefined), [record]);
    return undefined;
  }
  plan.finish(step, outcome.error !== undefined && !call.signal.aborted);
  return endStream(call, entry, outcome, plan.attempts);
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
