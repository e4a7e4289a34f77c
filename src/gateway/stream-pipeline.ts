/**
 * Upstream SSE body → client, chunk by chunk, with backpressure: the one pump, and the translated
 * reader (decode to canonical events, encode for the surface); the pass-through reader (same
 * family: each upstream read forwarded as it came) is `pass-through-stream.ts`. Either way a
 * failure mid-stream ends the client's stream with the surface family's error event, never a
 * silent clean end, and what the client was sent is kept as canonical values (`StreamOutcome`:
 * usage, finish reasons, the delivered text).
 *
 * The client's stream starts lazily, with the first text there is to send: until then nothing has
 * reached the client, so a transport failure or timeout before the upstream's first bytes is
 * reported with `started: false` and the caller may try another attempt.
 */
import type { ResponseContext, StreamDecoder } from '../codecs/codec.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { GatewayError, type StreamEvent } from '../ir/index.ts';
import { SseParser, type SseEmit } from '../sse/parse-sse.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { toGatewayError } from '../upstream/upstream-errors.ts';
import { DeliveredEvents } from './delivered-text.ts';
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

/** What reads an upstream body: each chunk as it arrives, then its end. */
export interface StreamReader {
  push(chunk: Uint8Array | string): void;
  end(): void;
}

/** A reader that parses every SSE message (capped at `maxEventBytes`) and hands it to `onMessage`. */
export function parsingReader(maxEventBytes: number | undefined, onMessage: SseEmit): StreamReader {
  const parser = new SseParser(maxEventBytes);
  return {
    push: (chunk) => {
      parser.push(chunk, onMessage);
    },
    end: () => {
      parser.end(onMessage);
    },
  };
}

export interface Pump {
  response: UpstreamResponse;
  control: StreamControl;
  outcome: StreamOutcome;
  reader: StreamReader;
  /** Text produced so far and not yet written (taking it means it is written). */
  take: () => string;
}

/**
 * The one pump: reads an upstream body to its end, feeding each chunk to `reader` and writing
 * what `take` gives after each chunk (starting the client's stream with its first text), with
 * backpressure. Throws what the transport throws. A fan-out runs one per upstream call, all
 * sharing one `outcome` and one `take`.
 */
export async function pump({ response, control, outcome, reader, take }: Pump): Promise<void> {
  const { sink, timers } = control;
  for await (const chunk of response.body) {
    timers.chunk();
    reader.push(chunk);
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
  reader.end();
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
  const delivered = new DeliveredEvents();
  outcome.delivered = delivered.read;
  let buffer = '';
  let ended = false;
  const emit = (event: StreamEvent): void => {
    if (ended) return;
    observe(outcome, event);
    if (event.type === 'message-end' || event.type === 'error') ended = true;
    delivered.encoded(event);
    buffer += encoder.encode(event.type === 'message-start' ? { ...event, model: context.model } : event);
  };
  const fromUpstream = scrubbing(emit, scrubber);
  const take = (): string => {
    const text = buffer;
    buffer = '';
    delivered.written();
    return text;
  };
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

/** The upstream's own error events pass the scrubber; the gateway's own errors need not. */
export function scrubbing(
  emit: (event: StreamEvent) => void,
  scrubber: UpstreamErrorScrubber,
): (event: StreamEvent) => void {
  return (event) => {
    emit(event.type === 'error' ? { type: 'error', error: scrubber.scrub(event.error) } : event);
  };
}

/** What an event tells of the stream: usage so far, its end, its error, a choice's finish reason. */
export function observe(outcome: StreamOutcome, event: StreamEvent): void {
  // B reports input tokens at the start: usage so far, should the stream die before its end.
  if (event.type === 'message-start' && event.usage !== undefined) outcome.usage ??= event.usage;
  if (event.type === 'usage' || event.type === 'message-end') outcome.usage = event.usage;
  if (event.type === 'message-end') outcome.completed = true;
  if (event.type === 'error') outcome.error = event.error;
  if (event.type === 'finish') outcome.finishReasons[event.choice] = finishReasonName(event.finishReason);
}

export function abandon(response: UpstreamResponse, outcome: StreamOutcome): StreamOutcome {
  response.cancel();
  outcome.error = new GatewayError('upstream', 'the client disconnected');
  return outcome;
}

/** Nothing reached the client: the caller decides (another attempt, or an HTTP error). */
export function notStarted(
  response: UpstreamResponse,
  outcome: StreamOutcome,
  error: GatewayError,
): StreamOutcome {
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
