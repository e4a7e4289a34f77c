/**
 * `n` candidates from a family that returns one per call (B): n upstream calls, one attempt,
 * merged into one answer whose choice i is call i's reply and whose usage is the sum.
 */
import type { FamilyCodec, ResponseContext, SurfaceCodec } from '../families/codec.ts';
import {
  addUsage,
  emptyUsage,
  type ChatResponse,
  type GatewayError,
  type StreamEvent,
  type Usage,
} from '../ir/index.ts';
import type { AttemptPlan } from '../routing/attempt-plan.ts';
import { SseParser } from '../sse/parse-sse.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import { costHeader, endStream, sendJsonAnswer, servedByHeader, warningHeaders } from './answer-parts.ts';
import type { Attempt } from './attempt.ts';
import type { ChatCall } from './chat-call.ts';
import { decodeContext, parseUpstreamJson, readBodyText } from './decode-context.ts';
import type { Delivery } from './deliver.ts';
import type { PreparedRequest } from './prepare-request.ts';
import { scrubbing, type StreamControl, type StreamOutcome } from './stream-pipeline.ts';
import { bodyFailure, failed, newRecord, sendAttempt } from './upstream-attempt.ts';

export async function fanOutResponse(
  target: FamilyCodec,
  responses: UpstreamResponse[],
  timers: CallTimers,
): Promise<ChatResponse> {
  const decoded = await Promise.all(
    responses.map(async (response) =>
      target.decodeResponse(parseUpstreamJson(await readBodyText(response, timers)), decodeContext),
    ),
  );
  const first = decoded[0];
  if (first === undefined) throw new Error('fan-out without responses');
  return {
    id: first.id,
    model: first.model,
    created: first.created,
    choices: decoded.flatMap((response, call) =>
      response.choices.map((choice) => ({ ...choice, index: call })),
    ),
    usage: decoded.reduce<Usage>((sum, response) => addUsage(sum, response.usage), { ...emptyUsage }),
  };
}

/**
 * Interleaves n decoded streams into one: one message-start, choice i from call i, summed usage.
 * The client's stream starts with the first text to send; failures after that are in-band.
 */
export async function fanOutStream(
  surface: SurfaceCodec,
  target: FamilyCodec,
  responses: UpstreamResponse[],
  context: ResponseContext,
  control: StreamControl,
  scrubber: UpstreamErrorScrubber,
): Promise<StreamOutcome> {
  const { sink, signal, timers } = control;
  const encoder = surface.createStreamEncoder(context);
  const usages: Usage[] = responses.map(() => ({ ...emptyUsage }));
  const total = (): Usage => usages.reduce<Usage>((sum, usage) => addUsage(sum, usage), { ...emptyUsage });
  let buffer = '';
  let started = false;
  const outcome = { started: false };
  const write = async (text: string): Promise<void> => {
    if (!outcome.started) {
      outcome.started = true;
      control.begin();
    }
    await sink.write(text);
  };
  // An object, not `let`s: assignments inside the emit closure stay visible to the checker.
  const state: { ended: boolean; error: GatewayError | undefined } = { ended: false, error: undefined };
  let open = responses.length;
  const emitFrom =
    (call: number) =>
    (event: StreamEvent): void => {
      if (state.ended) return;
      if (event.type === 'message-start') {
        if (event.usage !== undefined) usages[call] = event.usage;
        if (!started) buffer += encoder.encode({ ...event, model: context.model });
        started = true;
      } else if (event.type === 'usage' || event.type === 'message-end') {
        usages[call] = event.usage;
        open -= event.type === 'message-end' ? 1 : 0;
        if (event.type === 'usage') buffer += encoder.encode({ type: 'usage', usage: total() });
        else if (open === 0) {
          state.ended = true;
          buffer += encoder.encode({ type: 'message-end', usage: total() });
        }
      } else if (event.type === 'error') {
        state.ended = true;
        state.error = event.error;
        buffer += encoder.encode({ type: 'error', error: event.error });
        for (const response of responses) response.cancel();
      } else {
        buffer += encoder.encode({ ...event, choice: call });
      }
    };
  const pumpOne = async (response: UpstreamResponse, call: number): Promise<void> => {
    const parser = new SseParser(control.maxEventBytes);
    const decoder = target.createStreamDecoder(decodeContext);
    const emit = emitFrom(call);
    const fromUpstream = scrubbing(emit, scrubber);
    try {
      for await (const chunk of response.body) {
        timers.chunk();
        parser.push(chunk, (message) => decoder.push(message, fromUpstream));
        const text = buffer;
        buffer = '';
        if (text.length > 0) await write(text);
      }
      parser.end((message) => decoder.push(message, fromUpstream));
      decoder.end(emit);
    } catch (error) {
      if (!signal.aborted)
        emit({ type: 'error', error: timers.fired ?? toGatewayError(error, timers.signal) });
    }
  };
  await Promise.all(responses.map(pumpOne));
  if (buffer.length > 0) void write(buffer);
  return {
    usage: total(),
    completed: state.ended && state.error === undefined,
    error: state.error,
    started: outcome.started,
  };
}

/** `n` candidates from a family that returns one per call (B): n calls, one attempt. */
export async function fanOutAttempt(
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
      sendAttempt(
        call,
        attempt,
        { ...upstreamRequest, headers: { ...upstreamRequest.headers } },
        timers,
        record,
      ),
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
  if (request.stream) {
    const control: StreamControl = {
      sink: call.sink,
      signal: call.signal,
      timers,
      maxEventBytes: step.deployment.limits.maxEventBytes,
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
    const outcome = await fanOutStream(
      call.surface,
      codec,
      responses,
      context,
      control,
      step.deployment.scrubber,
    );
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
  const body = call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  return sendJsonAnswer(call, entry, body, decoded.usage, headers, plan.attempts);
}
