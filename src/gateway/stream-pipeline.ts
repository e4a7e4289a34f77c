/**
 * Upstream SSE body → client, chunk by chunk, with backpressure. Two modes: translated (decode to
 * canonical events, encode for the surface) and pass-through (same family: each SSE message is
 * forwarded as-is and only observed). Either way a failure mid-stream ends the client's stream
 * with the surface family's error event, never a silent clean end.
 *
 * The client's stream starts lazily, with the first text there is to send: until then nothing has
 * reached the client, so a transport failure or timeout before the upstream's first bytes is
 * reported with `started: false` and the caller may try another attempt.
 */
import type { ResponseContext, StreamDecoder } from '../codecs/codec.ts';
import type { PassThroughSurface, SurfaceCodec } from '../surfaces/surface.ts';
import { GatewayError, type StreamEvent } from '../ir/index.ts';
import { SseParser, type SseMessage } from '../sse/parse-sse.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import { finishReasonName, newStreamOutcome, type StreamOutcome } from './delivery.ts';
import type { ResponseSink } from './response-sink.ts';

/** How a pipeline opens the client's stream and keeps the upstream call's timers informed. */
export interface StreamControl {
  sink: ResponseSink;
  /** The client's signal (its disconnect). */
  signal: AbortSignal;
  timers: CallTimers;
  /** The most one upstream SSE event may hold (`upstreamLimits.maxEventBytes`); unbounded when absent. */
  maxEventBytes?: number;
  /** Starts the client's stream (headers); called once, right before the first write. */
  begin(): void;
}

export interface Pump {
  response: UpstreamResponse;
  control: StreamControl;
  outcome: StreamOutcome;
  onMessage: (message: SseMessage) => void;
  /** Text produced so far and not yet written. */
  take: () => string;
}

/**
 * The one pump: reads an upstream SSE body to its end, feeding each message to `onMessage` and
 * writing what `take` gives after each chunk (starting the client's stream with its first text),
 * with backpressure. Throws what the transport throws. A fan-out runs one per upstream call, all
 * sharing one `outcome` and one `take`.
 */
export async function pump({ response, control, outcome, onMessage, take }: Pump): Promise<void> {
  const parser = new SseParser(control.maxEventBytes);
  const { sink, timers } = control;
  for await (const chunk of response.body) {
    timers.chunk();
    parser.push(chunk, onMessage);
    const text = take();
    if (text.length > 0) {
      if (!outcome.started) {
        outcome.started = true;
        control.begin();
      }
      const drained = sink.write(text);
      if (drained !== undefined) await drained;
    }
  }
  parser.end(onMessage);
}

/** The failure to report for a thrown transport error: a timer's own error when one fired. */
export function streamFailure(error: unknown, timers: CallTimers): GatewayError {
  return timers.fired ?? toGatewayError(error, timers.signal);
}

export interface TranslatedStream {
  surface: SurfaceCodec;
  decoder: StreamDecoder;
  context: ResponseContext;
  /** What of the upstream's own error events a client may read. */
  scrubber: UpstreamErrorScrubber;
}

export async function streamTranslated(
  { surface, decoder, context, scrubber }: TranslatedStream,
  response: UpstreamResponse,
  control: StreamControl,
): Promise<StreamOutcome> {
  const encoder = surface.createStreamEncoder(context);
  const outcome = newStreamOutcome();
  let buffer = '';
  let ended = false;
  const emit = (event: StreamEvent): void => {
    if (ended) return;
    observe(outcome, event);
    if (event.type === 'message-end' || event.type === 'error') ended = true;
    buffer += encoder.encode(event.type === 'message-start' ? { ...event, model: context.model } : event);
  };
  const fromUpstream = scrubbing(emit, scrubber);
  const take = (): string => {
    const text = buffer;
    buffer = '';
    return text;
  };
  try {
    await pump({
      response,
      control,
      outcome,
      onMessage: (message) => decoder.push(message, fromUpstream),
      take,
    });
    // A transport that ends the body when aborted (the simulator) leaves the timer's error to report.
    const fired = control.timers.fired;
    if (fired !== undefined && !outcome.completed) {
      if (!outcome.started && buffer.length === 0) return notStarted(response, outcome, fired);
      emit({ type: 'error', error: fired });
    }
    decoder.end(emit);
  } catch (error) {
    if (control.signal.aborted) return abandon(response, outcome);
    if (!outcome.started && buffer.length === 0)
      return notStarted(response, outcome, streamFailure(error, control.timers));
    emit({ type: 'error', error: streamFailure(error, control.timers) });
  }
  writeRest(control, outcome, take());
  return outcome;
}

export interface PassThroughStream extends TranslatedStream {
  surface: PassThroughSurface;
}

export async function streamPassThrough(
  { surface, decoder, context, scrubber }: PassThroughStream,
  response: UpstreamResponse,
  control: StreamControl,
): Promise<StreamOutcome> {
  const outcome = newStreamOutcome();
  let buffer = '';
  // Everything is forwarded verbatim except errors: an upstream's error text may quote its key or
  // account, so errors (sent by the upstream or detected here) are re-encoded from the decoded error.
  let failure: GatewayError | undefined;
  const observeEvent = (event: StreamEvent): void => {
    observe(outcome, event);
    if (event.type === 'error') failure = event.error;
  };
  const encodeFailure = (): void => {
    if (failure === undefined) return;
    buffer += surface.createStreamEncoder(context).encode({ type: 'error', error: failure });
  };
  const fromUpstream = scrubbing(observeEvent, scrubber);
  const onMessage = (message: SseMessage): void => {
    // After the upstream's end (A `[DONE]`, B `message_stop`) or a failure, nothing more goes on.
    if (outcome.completed || outcome.error !== undefined) return;
    decoder.push(message, fromUpstream);
    if (failure === undefined) buffer += surface.passThrough.forwardStreamMessage(message, context);
    else encodeFailure();
  };
  const take = (): string => {
    const text = buffer;
    buffer = '';
    return text;
  };
  try {
    await pump({ response, control, outcome, onMessage, take });
    if (!outcome.completed && outcome.error === undefined) {
      const fired = control.timers.fired;
      if (fired !== undefined && !outcome.started && buffer.length === 0)
        return notStarted(response, outcome, fired);
      if (fired !== undefined) observeEvent({ type: 'error', error: fired });
      else decoder.end(observeEvent);
      encodeFailure();
    }
  } catch (error) {
    if (control.signal.aborted) return abandon(response, outcome);
    if (!outcome.started && buffer.length === 0)
      return notStarted(response, outcome, streamFailure(error, control.timers));
    if (outcome.error === undefined) {
      observeEvent({ type: 'error', error: streamFailure(error, control.timers) });
      encodeFailure();
    }
  }
  writeRest(control, outcome, take());
  return outcome;
}

/** The upstream's own error events pass the scrubber; the gateway's own errors need not. */
export function scrubbing(
  emit: (event: StreamEvent) => void,
  scrubber: UpstreamErrorScrubber,
): (event: StreamEvent) => void {
  return (event) => {
    emit(event.type === 'error' ? { type: 'error', error: scrubber.scrub(event.error) } : event);
  };
}

function observe(outcome: StreamOutcome, event: StreamEvent): void {
  // B reports input tokens at the start: usage so far, should the stream die before its end.
  if (event.type === 'message-start' && event.usage !== undefined) outcome.usage ??= event.usage;
  if (event.type === 'usage' || event.type === 'message-end') outcome.usage = event.usage;
  if (event.type === 'message-end') outcome.completed = true;
  if (event.type === 'error') outcome.error = event.error;
  if (event.type === 'finish') outcome.finishReasons[event.choice] = finishReasonName(event.finishReason);
}

function abandon(response: UpstreamResponse, outcome: StreamOutcome): StreamOutcome {
  response.cancel();
  outcome.error = new GatewayError('upstream', 'the client disconnected');
  return outcome;
}

/** Nothing reached the client: the caller decides (another attempt, or an HTTP error). */
function notStarted(response: UpstreamResponse, outcome: StreamOutcome, error: GatewayError): StreamOutcome {
  response.cancel();
  outcome.error = error;
  return outcome;
}

/** Writes what is left (starting the stream if nothing was written yet); the caller ends it. */
export function writeRest(control: StreamControl, outcome: StreamOutcome, rest: string): void {
  if (rest.length === 0) return;
  if (!outcome.started) {
    outcome.started = true;
    control.begin();
  }
  void control.sink.write(rest);
}
