/**
 * `n` candidates from a family that returns one per call (B): n upstream calls, one attempt,
 * merged into one answer whose choice i is call i's reply and whose usage is the sum. A stream
 * reads the n upstream streams side by side through the one pump (stream-pipeline.ts) and
 * interleaves their events into one client stream.
 */
import type { ResponseContext, WireCodec } from '../codecs/codec.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import {
  addUsage,
  emptyUsage,
  type ChatResponse,
  type GatewayError,
  type StreamEvent,
  type Usage,
} from '../ir/index.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { answerHeaders, endStream, sendJsonAnswer, startStream } from './answer-parts.ts';
import type { AttemptRun } from './attempt-run.ts';
import { decodeContext, parseUpstreamJson, readBodyText } from './decode-context.ts';
import { finishReasonName, newStreamOutcome, type Delivery, type StreamOutcome } from './delivery.ts';
import { DeliveredEvents } from './delivered-text.ts';
import {
  parsingReader,
  pump,
  scrubbing,
  streamFailure,
  writeRest,
  type StreamControl,
} from './stream-pipeline.ts';

/** The n calls of `run`; undefined when they failed in a way that allows another attempt. */
export async function fanOut(run: AttemptRun): Promise<Delivery | undefined> {
  const { call, prepared, attempt } = run;
  const { step, codec, entry, upstreamRequest } = attempt;
  const sent = await Promise.all(
    run.records.map((record) =>
      run.send({ ...upstreamRequest, headers: { ...upstreamRequest.headers } }, record),
    ),
  );
  const responses = sent.flatMap((result) => (result.ok ? [result.response] : []));
  const failure = sent.find((result) => !result.ok);
  if (failure?.ok === false) {
    for (const response of responses) response.cancel();
    run.fail(failure.failure);
    return undefined;
  }
  const notes = [...(attempt.notes ?? []), `n=${attempt.calls} is served by ${attempt.calls} upstream calls`];
  const headers = answerHeaders(entry, notes, upstreamRequest.warnings, step.deployment.simulated);
  const { context } = prepared;
  if (prepared.request.stream) {
    const control: StreamControl = {
      sink: call.sink,
      signal: call.signal,
      timers: run.timers,
      maxEventBytes: step.deployment.limits.maxEventBytes,
      begin: () => {
        run.answered();
        startStream(call, headers);
      },
    };
    const outcome = await mergeStreams(
      call.surface,
      codec,
      responses,
      context,
      control,
      step.deployment.scrubber,
    );
    if (!outcome.started) control.begin();
    run.finish(outcome.error !== undefined && !call.signal.aborted);
    return endStream(call, entry, outcome, run.allRecords);
  }
  let merged: ChatResponse;
  try {
    merged = await mergeResponses(codec, responses, run.timers);
  } catch (error) {
    for (const response of responses) response.cancel();
    run.fail(run.failure(error));
    return undefined;
  }
  run.answered();
  run.finish(false);
  const body = call.surface.encodeResponse({ ...merged, model: context.model }, context);
  const finishReasons = merged.choices.map((choice) => finishReasonName(choice.finishReason));
  return sendJsonAnswer(call, entry, body, merged.usage, finishReasons, headers, run.allRecords);
}

export async function mergeResponses(
  target: WireCodec,
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
export async function mergeStreams(
  surface: SurfaceCodec,
  target: WireCodec,
  responses: UpstreamResponse[],
  context: ResponseContext,
  control: StreamControl,
  scrubber: UpstreamErrorScrubber,
): Promise<StreamOutcome> {
  const encoder = surface.createStreamEncoder(context);
  const usages: Usage[] = responses.map(() => ({ ...emptyUsage }));
  const total = (): Usage => usages.reduce<Usage>((sum, usage) => addUsage(sum, usage), { ...emptyUsage });
  const outcome = newStreamOutcome();
  const delivered = new DeliveredEvents();
  outcome.delivered = delivered.read;
  let buffer = '';
  const take = (): string => {
    const text = buffer;
    buffer = '';
    delivered.written();
    return text;
  };
  let messageStarted = false;
  // An object, not `let`s: assignments inside the emit closure stay visible to the checker.
  const state: { ended: boolean; error: GatewayError | undefined } = { ended: false, error: undefined };
  let open = responses.length;
  const emitFrom =
    (call: number) =>
    (event: StreamEvent): void => {
      if (state.ended) return;
      if (event.type === 'message-start') {
        if (event.usage !== undefined) usages[call] = event.usage;
        if (!messageStarted) buffer += encoder.encode({ ...event, model: context.model });
        messageStarted = true;
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
        if (event.type === 'finish') outcome.finishReasons[call] = finishReasonName(event.finishReason);
        delivered.encoded(event);
        buffer += encoder.encode({ ...event, choice: call });
      }
    };
  const readOne = async (response: UpstreamResponse, call: number): Promise<void> => {
    const decoder = target.createStreamDecoder(decodeContext);
    const emit = emitFrom(call);
    const fromUpstream = scrubbing(emit, scrubber);
    try {
      await pump({
        response,
        control,
        outcome,
        reader: parsingReader(control.maxEventBytes, (message) => {
          decoder.push(message, fromUpstream);
        }),
        take,
      });
      decoder.end(emit);
    } catch (error) {
      if (!control.signal.aborted) emit({ type: 'error', error: streamFailure(error, control.timers) });
    }
  };
  await Promise.all(responses.map(readOne));
  writeRest(control, outcome, take());
  outcome.usage = total();
  outcome.completed = state.ended && state.error === undefined;
  outcome.error = state.error;
  return outcome;
}
