/**
 * Delivery: call the upstream for a prepared request and answer the client in the surface's
 * shape — JSON or a piped stream, translated or passed through, one call or an `n` fan-out.
 *
 * Attempts follow the model's `AttemptPlan` (deployments, retries, fallbacks); each runs as an
 * `AttemptRun` (attempt-run.ts: send, fail, answered). An attempt may be followed by another only
 * while nothing reached the client and the upstream sent no body byte. When nothing was sent to
 * the client the result is `Undelivered` (the error it gets instead); once an answer has started,
 * failures end it in-band and are reported in the `Delivery`. Either way with every call's record.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { hasPassThrough } from '../surfaces/surface.ts';
import { GatewayError, isJsonObject } from '../ir/index.ts';
import { AttemptPlan } from '../routing/attempt-plan.ts';
import type { ModelRoute } from '../routing/deployment.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { AfterDispatch } from './admission.ts';
import { answerHeaders, endStream, sendJsonAnswer, startStream } from './answer-parts.ts';
import { attemptFor } from './attempt.ts';
import { AttemptRun, clientGone, isRehearsal, type Delivering } from './attempt-run.ts';
import type { ChatCall } from './chat-call.ts';
import { decodeContext, parseUpstreamJson } from './decode-context.ts';
import { finishReasonName, type Delivery, type DeliveryResult } from './delivery.ts';
import { fanOut } from './fan-out.ts';
import type { PreparedRequest } from './prepare-request.ts';
import { streamPassThrough } from './pass-through-stream.ts';
import { streamTranslated, type StreamControl } from './stream-pipeline.ts';

/** `afterDispatch`: admission's work for once the first upstream request is on its way. */
export async function deliver(
  call: ChatCall,
  prepared: PreparedRequest,
  route: ModelRoute,
  afterDispatch: AfterDispatch | undefined,
): Promise<DeliveryResult> {
  const plan = new AttemptPlan(route, route.retry, route.clock, isRehearsal(call.headers));
  const delivering: Delivering = {
    call,
    prepared,
    plan,
    afterDispatch,
    strictRequest: undefined,
    records: [],
  };
  // The plan's attempts, one after another, until one answers. One async function for the loop and
  // the one-call answer (once three, each its own promise and saved frame on every request).
  try {
    for (;;) {
      const step = plan.next();
      if (step === undefined) throw plan.finalError();
      if (step.waitMs > 0 && !(await pause(step.waitMs, call.signal))) throw clientGone();
      const planned = attemptFor(call, prepared, step, delivering);
      const attempt = planned instanceof Promise ? await planned : planned;
      if (attempt instanceof GatewayError) {
        plan.skipModel(attempt);
        continue;
      }
      const run = new AttemptRun(delivering, attempt);
      try {
        let delivery: Delivery | undefined;
        if (attempt.calls > 1) delivery = await fanOut(run);
        else {
          const sent = await run.send(attempt.upstreamRequest, run.records[0]);
          if (!sent.ok) run.fail(sent.failure);
          else if (prepared.request.stream) delivery = await answerStream(run, sent.response);
          else {
            const whole = readWholeNow(sent.response, run.timers);
            delivery = answerJson(run, whole ?? (await readWhole(sent.response, run)));
          }
        }
        if (delivery !== undefined) return delivery;
      } finally {
        run.close();
      }
    }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { delivered: false, error, records: delivering.records };
  }
}

/** The whole JSON body when it has already arrived (the common case: no promise), else undefined. */
function readWholeNow(response: UpstreamResponse, timers: CallTimers): string | undefined {
  const text = response.textNow?.();
  if (text !== undefined) timers.complete();
  return text;
}

/** Waits for the whole JSON body; a failed read is the attempt's failure (undefined: no text). */
async function readWhole(response: UpstreamResponse, run: AttemptRun): Promise<string | undefined> {
  try {
    const text = await response.text();
    // The first-byte timer runs until the body is complete: one that stalls halfway can be retried.
    run.timers.complete();
    return text;
  } catch (error) {
    response.cancel();
    run.fail(run.failure(error));
    return undefined;
  }
}

/** Answers with a whole JSON body read as `text`; undefined (no text, or unreadable) when another attempt may follow. */
function answerJson(run: AttemptRun, text: string | undefined): Delivery | undefined {
  if (text === undefined) return undefined;
  const { call, prepared, attempt } = run;
  let upstreamBody: unknown;
  let decoded;
  try {
    upstreamBody = parseUpstreamJson(text);
    decoded = attempt.codec.decodeResponse(upstreamBody, decodeContext);
  } catch (error) {
    // Read whole, so never retried: the upstream answered (and billed), another call would bill again.
    run.fail(run.failure(unreadable(error)));
    return undefined;
  }
  run.answered();
  run.finish(false);
  const context = prepared.context;
  const passThrough = attempt.passThrough ? call.surface.passThrough : undefined;
  const body =
    passThrough !== undefined && isJsonObject(upstreamBody)
      ? (passThrough.rewriteResponseText?.(text, upstreamBody, context) ??
        passThrough.rewriteResponse(upstreamBody, context))
      : call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  const headers = answerHeaders(
    attempt.entry,
    attempt.notes,
    attempt.upstreamRequest.warnings,
    attempt.step.deployment.simulated,
  );
  const finishReasons = decoded.choices.map((choice) => finishReasonName(choice.finishReason));
  return sendJsonAnswer(call, attempt.entry, body, decoded.usage, finishReasons, headers, run.allRecords);
}

async function answerStream(run: AttemptRun, response: UpstreamResponse): Promise<Delivery | undefined> {
  const { call, prepared, attempt } = run;
  const deployment = attempt.step.deployment;
  const control: StreamControl = {
    sink: call.sink,
    signal: call.signal,
    timers: run.timers,
    maxEventBytes: deployment.limits.maxEventBytes,
    begin: () => {
      run.answered();
      startStream(
        call,
        answerHeaders(
          attempt.entry,
          attempt.notes,
          attempt.upstreamRequest.warnings,
          attempt.step.deployment.simulated,
        ),
      );
    },
  };
  const stream = {
    surface: call.surface,
    decoder: attempt.codec.createStreamDecoder(decodeContext),
    context: prepared.context,
    scrubber: deployment.scrubber,
  };
  const surface = call.surface;
  const outcome =
    attempt.passThrough && hasPassThrough(surface)
      ? await streamPassThrough({ ...stream, surface }, response, control)
      : await streamTranslated(stream, response, control);
  if (!outcome.started) {
    run.fail(
      run.failure(outcome.error ?? new GatewayError('upstream', 'the upstream stream ended without data')),
    );
    return undefined;
  }
  run.finish(outcome.error !== undefined && !call.signal.aborted);
  return endStream(call, attempt.entry, outcome, run.allRecords);
}

/** A 2xx body the gateway cannot read: the codec's own error, or a plain one. */
function unreadable(error: unknown): GatewayError {
  return error instanceof GatewayError
    ? error
    : new GatewayError('upstream', 'the upstream sent an answer the gateway cannot read', { cause: error });
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
