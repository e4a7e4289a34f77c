/**
 * Upstream SSE body → client, chunk by chunk, with backpressure. Two modes: translated (decode to
 * canonical events, encode for the surface) and pass-through (same family: each SSE message is
 * forwarded as-is and only observed). Either way a failure mid-stream ends the client's stream
 * with the surface family's error event, never a silent clean end.
 */
import type { FamilyCodec, ResponseContext, StreamDecoder } from '../families/codec.ts';
import { GatewayError, type StreamEvent, type Usage } from '../ir/index.ts';
import { SseParser, type SseMessage } from '../sse/parse-sse.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { toGatewayError } from '../upstream/http-transport.ts';
import type { ResponseSink } from './response-sink.ts';

/** What the gateway learns from a stream, whichever mode carried it. */
export interface StreamOutcome {
  usage: Usage | undefined;
  completed: boolean;
  error: GatewayError | undefined;
}

interface Pump {
  response: UpstreamResponse;
  sink: ResponseSink;
  signal: AbortSignal;
  onMessage: (message: SseMessage) => void;
  /** Text produced so far and not yet written. */
  take: () => string;
}

/** Reads the body to its end; throws what the transport throws. */
async function pump({ response, sink, onMessage, take }: Pump): Promise<void> {
  const parser = new SseParser();
  for await (const chunk of response.body) {
    parser.push(chunk, onMessage);
    const text = take();
    if (text.length > 0) {
      const drained = sink.write(text);
      if (drained !== undefined) await drained;
    }
  }
  parser.end(onMessage);
}

export interface TranslatedStream {
  surface: FamilyCodec;
  decoder: StreamDecoder;
  context: ResponseContext;
  /** The upstream credential: scrubbed from any error text before it reaches the client. */
  secret: string | undefined;
}

export async function streamTranslated(
  { surface, decoder, context, secret }: TranslatedStream,
  response: UpstreamResponse,
  sink: ResponseSink,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const encoder = surface.createStreamEncoder(context);
  const outcome: StreamOutcome = { usage: undefined, completed: false, error: undefined };
  let buffer = '';
  let ended = false;
  const emit = (event: StreamEvent): void => {
    if (ended) return;
    observe(outcome, event);
    if (event.type === 'message-end' || event.type === 'error') ended = true;
    if (event.type === 'error')
      buffer += encoder.encode({ type: 'error', error: scrubSecret(event.error, secret) });
    else
      buffer += encoder.encode(event.type === 'message-start' ? { ...event, model: context.model } : event);
  };
  const take = (): string => {
    const text = buffer;
    buffer = '';
    return text;
  };
  try {
    await pump({ response, sink, signal, onMessage: (message) => decoder.push(message, emit), take });
    decoder.end(emit);
  } catch (error) {
    if (signal.aborted) return abandon(response, outcome);
    emit({ type: 'error', error: toGatewayError(error) });
  }
  finish(sink, take());
  return outcome;
}

export interface PassThroughStream extends TranslatedStream {
  upstreamModel: string;
}

export async function streamPassThrough(
  { surface, decoder, context, upstreamModel, secret }: PassThroughStream,
  response: UpstreamResponse,
  sink: ResponseSink,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const outcome: StreamOutcome = { usage: undefined, completed: false, error: undefined };
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
    buffer += surface
      .createStreamEncoder(context)
      .encode({ type: 'error', error: scrubSecret(failure, secret) });
  };
  const onMessage = (message: SseMessage): void => {
    if (outcome.error !== undefined) return;
    decoder.push(message, observeEvent);
    if (failure === undefined)
      buffer += surface.passThrough.forwardStreamMessage(message, context, upstreamModel);
    else encodeFailure();
  };
  const take = (): string => {
    const text = buffer;
    buffer = '';
    return text;
  };
  try {
    await pump({ response, sink, signal, onMessage, take });
    if (!outcome.completed && outcome.error === undefined) {
      decoder.end(observeEvent);
      encodeFailure();
    }
  } catch (error) {
    if (signal.aborted) return abandon(response, outcome);
    if (outcome.error === undefined) {
      observeEvent({ type: 'error', error: toGatewayError(error) });
      encodeFailure();
    }
  }
  finish(sink, take());
  return outcome;
}

/** Last guard: an error message never carries the upstream credential, whatever a codec let through. */
export function scrubSecret(error: GatewayError, secret: string | undefined): GatewayError {
  if (secret === undefined || secret.length < 4 || !error.message.includes(secret)) return error;
  const options = { ...(error.param === undefined ? {} : { param: error.param }) };
  const retry = error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds };
  return new GatewayError(error.kind, error.message.split(secret).join('[redacted]'), {
    ...options,
    ...retry,
  });
}

function observe(outcome: StreamOutcome, event: StreamEvent): void {
  if (event.type === 'usage' || event.type === 'message-end') outcome.usage = event.usage;
  if (event.type === 'message-end') outcome.completed = true;
  if (event.type === 'error') outcome.error = event.error;
}

function abandon(response: UpstreamResponse, outcome: StreamOutcome): StreamOutcome {
  response.cancel();
  outcome.error = new GatewayError('upstream', 'the client disconnected');
  return outcome;
}

/** Writes what is left; the caller ends the answer (it may add trailers). */
function finish(sink: ResponseSink, rest: string): void {
  if (rest.length > 0) void sink.write(rest);
}
