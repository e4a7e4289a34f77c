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
}

export async function streamTranslated(
  { surface, decoder, context }: TranslatedStream,
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

export interface PassThroughStream {
  surface: FamilyCodec;
  decoder: StreamDecoder;
  context: ResponseContext;
  upstreamModel: string;
}

export async function streamPassThrough(
  { surface, decoder, context, upstreamModel }: PassThroughStream,
  response: UpstreamResponse,
  sink: ResponseSink,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const outcome: StreamOutcome = { usage: undefined, completed: false, error: undefined };
  let buffer = '';
  // Errors the upstream itself sent were forwarded verbatim; only failures the gateway detects
  // (early end, transport error) need encoding here.
  let detecting = false;
  const observeEvent = (event: StreamEvent): void => {
    observe(outcome, event);
    if (detecting && event.type === 'error') buffer += surface.createStreamEncoder(context).encode(event);
  };
  const onMessage = (message: SseMessage): void => {
    buffer += surface.passThrough.forwardStreamMessage(message, context, upstreamModel);
    decoder.push(message, observeEvent);
  };
  const take = (): string => {
    const text = buffer;
    buffer = '';
    return text;
  };
  try {
    await pump({ response, sink, signal, onMessage, take });
    detecting = true;
    if (!outcome.completed && outcome.error === undefined) decoder.end(observeEvent);
  } catch (error) {
    if (signal.aborted) return abandon(response, outcome);
    detecting = true;
    if (outcome.error === undefined) observeEvent({ type: 'error', error: toGatewayError(error) });
  }
  finish(sink, take());
  return outcome;
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

function finish(sink: ResponseSink, rest: string): void {
  if (rest.length > 0) void sink.write(rest);
  sink.end();
}
