/**
 * A same-family stream: each upstream read is forwarded as it came, with the model renamed where
 * an event names it. A scanner finds where the events end (`sse/scan-events.ts`); the family's
 * `StreamForwarder` passes on every event it need not read, without a parse (so a content event's
 * JSON is the upstream's own, unchecked, as any proxy's), and only the rest — the events that may
 * carry usage, a finish reason, an error or the end, or that are not in the family's plain form —
 * are parsed, decoded and re-framed (`forwardStreamMessage`). Errors are never forwarded: an
 * upstream's error text may quote its key or account, so an error (sent by the upstream or
 * detected here) ends the stream re-encoded from the decoded error. A stream with `\r` line ends is
 * parsed and decoded whole.
 */
import type { ResponseContext, StreamDecoder } from '../codecs/codec.ts';
import type { PassThroughSurface } from '../surfaces/surface.ts';
import type { GatewayError, StreamEvent } from '../ir/index.ts';
import { SseEventTooLarge, SseParser, type SseMessage } from '../sse/parse-sse.ts';
import { eventEnd as endOfEvent, SseEventScanner } from '../sse/scan-events.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { decodeContext } from './decode-context.ts';
import { DeliveredSse } from './delivered-text.ts';
import { newStreamOutcome, type StreamOutcome } from './delivery.ts';
import {
  abandon,
  notStarted,
  observe,
  pump,
  scrubbing,
  streamFailure,
  writeRest,
  type StreamControl,
  type StreamReader,
} from './stream-pipeline.ts';

export interface PassThroughStream {
  surface: PassThroughSurface;
  /** The upstream's decoder: it reads the events that matter. */
  decoder: StreamDecoder;
  context: ResponseContext;
  /** What of the upstream's own error events a client may read. */
  scrubber: UpstreamErrorScrubber;
}

export async function streamPassThrough(
  { surface, decoder, context, scrubber }: PassThroughStream,
  response: UpstreamResponse,
  control: StreamControl,
): Promise<StreamOutcome> {
  const outcome = newStreamOutcome();
  // The content events are never decoded here: what was sent is read back only if it is asked for.
  const delivered = new DeliveredSse(() => surface.createStreamDecoder(decodeContext));
  outcome.delivered = delivered.read;
  let buffer = '';
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
  // After the upstream's end (A `[DONE]`, B `message_stop`) or a failure, nothing more goes on.
  const stopped = (): boolean => outcome.completed || outcome.error !== undefined;
  const read = (message: SseMessage): void => {
    if (stopped()) return;
    decoder.push(message, fromUpstream);
    if (failure === undefined) buffer += surface.passThrough.forwardStreamMessage(message, context);
    else encodeFailure();
  };
  const parser = new SseParser(control.maxEventBytes);
  const forwarder = surface.passThrough.streamForwarder(context);
  const maxEventChars = control.maxEventBytes ?? Number.POSITIVE_INFINITY;
  const write = (text: string): void => {
    buffer += text;
  };
  const reader = forwardingReader(parser, control.maxEventBytes, read, (events) => {
    eachEvent(events, maxEventChars, stopped, (start) => {
      const end = forwarder.forward(events, start, write);
      if (end !== -1) return end;
      // Read: parsed, decoded and re-framed as every event once was.
      const eventEnd = endOfEvent(events, start);
      parser.push(events.slice(start, eventEnd), read);
      return eventEnd;
    });
  });
  const take = (): string => {
    const text = buffer;
    buffer = '';
    delivered.written(text);
    return text;
  };
  try {
    await pump({ response, control, outcome, reader, take });
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

/**
 * Bytes → text with a streaming decoder (a character split across reads arrives whole), whole
 * events to `onEvents` as one text; once the stream uses `\r` line ends, everything to `parser`
 * and `read` as the full parser's messages. At the end, an unfinished last event is read too.
 */
function forwardingReader(
  parser: SseParser,
  maxEventBytes: number | undefined,
  read: (message: SseMessage) => void,
  onEvents: (events: string) => void,
): StreamReader {
  const utf8 = new TextDecoder('utf-8');
  const scanner = new SseEventScanner(maxEventBytes);
  let parsing = false;
  const push = (text: string): void => {
    if (parsing) {
      parser.push(text, read);
      return;
    }
    const events = scanner.take(text);
    if (events === undefined) {
      parsing = true;
      parser.push(scanner.rest(), read);
    } else if (events.length > 0) onEvents(events);
  };
  return {
    push: (chunk) => {
      push(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }));
    },
    end: () => {
      push(utf8.decode());
      if (!parsing) parser.push(scanner.rest(), read);
      parser.end(read);
    },
  };
}

/**
 * Each event of a text of whole events, in order (`each` handles the one at `start` and says
 * where it ended); blank lines between events skipped; until `stopped`, or an event past
 * `maxEventChars` (the scanner caps only the part it holds: a text within the cap is not searched).
 */
function eachEvent(
  events: string,
  maxEventChars: number,
  stopped: () => boolean,
  each: (start: number) => number,
): void {
  const capped = events.length > maxEventChars;
  let start = 0;
  while (start < events.length && !stopped()) {
    if (events.charCodeAt(start) === 0x0a) start++;
    else if (capped && endOfEvent(events, start) - start > maxEventChars)
      throw new SseEventTooLarge(maxEventChars);
    else start = each(start);
  }
}
