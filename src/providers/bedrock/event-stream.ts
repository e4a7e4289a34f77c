/**
 * AWS's binary event stream (`application/vnd.amazon.eventstream`) re-framed as the SSE text the
 * codecs' decoders read, message by message as bytes arrive (a frame may be split anywhere; the
 * codec buffers the rest). Two framings:
 * - InvokeModelWithResponseStream: each `chunk` event carries `{"bytes": base64}` of one Anthropic
 *   stream event → `event: <type>`, `data: <that JSON>`. `amazon-bedrock-invocationMetrics` on
 *   `message_stop` (Bedrock's own token counts) becomes a `message_delta` carrying them as usage
 *   just before it.
 * - ConverseStream: each event (`:event-type`) → `event: <eventType>`, `data: <payload>`.
 * An exception frame (`:message-type: exception`, or `error`) becomes the error each decoder reads:
 * B's `event: error` with the error type the exception stands for; a Converse exception event.
 */
import type { EventStreamCodec, Message } from '@smithy/eventstream-codec';
import { isJsonObject } from '../../ir/index.ts';

export type StreamFraming = 'invoke' | 'converse';

/** B's error type for each Bedrock stream exception (the B decoder reads the status from it). */
const betaErrorTypeByException: Readonly<Record<string, string>> = {
  throttlingException: 'rate_limit_error',
  validationException: 'invalid_request_error',
  serviceUnavailableException: 'overloaded_error',
  modelTimeoutException: 'timeout_error',
};

/** The exception events the Converse decoder knows; any other one reads as an internal error. */
const converseExceptions = new Set([
  'throttlingException',
  'validationException',
  'serviceUnavailableException',
  'modelStreamErrorException',
  'internalServerException',
]);

function sse(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

function headerText(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

function messageOf(payload: string): string {
  try {
    const parsed: unknown = JSON.parse(payload);
    if (isJsonObject(parsed) && typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return payload;
}

/**
 * Whole frames out of bytes cut anywhere. The codec decodes one complete frame at a time (the SDK
 * splits them the same way, by the total length its prelude starts with); the checksums are the
 * codec's to verify.
 */
export class FrameSplitter {
  #buffer: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): Uint8Array[] {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    const frames: Uint8Array[] = [];
    let offset = 0;
    while (joined.length - offset >= 4) {
      const length = new DataView(joined.buffer, offset, 4).getUint32(0, false);
      // A frame is at least its prelude and checksums (16 bytes); less is a corrupt stream.
      if (length < 16) throw new Error('event stream frame shorter than its prelude');
      if (joined.length - offset < length) break;
      frames.push(joined.subarray(offset, offset + length));
      offset += length;
    }
    this.#buffer = joined.slice(offset);
    return frames;
  }
}

export class EventStreamToSse {
  readonly #codec: EventStreamCodec;
  readonly #framing: StreamFraming;
  readonly #toUtf8: (bytes: Uint8Array) => string;
  readonly #frames = new FrameSplitter();

  constructor(codec: EventStreamCodec, framing: StreamFraming, toUtf8: (bytes: Uint8Array) => string) {
    this.#codec = codec;
    this.#framing = framing;
    this.#toUtf8 = toUtf8;
  }

  /** The SSE text of every message this chunk completes ('' while a frame is still partial). */
  push(chunk: Uint8Array): string {
    try {
      let text = '';
      for (const frame of this.#frames.push(chunk)) {
        this.#codec.feed(frame);
        for (const message of this.#codec.getAvailableMessages().getMessages())
          text += this.#reframe(message);
      }
      return text;
    } catch {
      // A bad prelude or checksum: nothing after it can be trusted.
      return this.error('internalServerException', 'the upstream sent a malformed event stream');
    }
  }

  /** The error event for an exception of this name, in the framing's own shape. */
  error(exception: string, message: string): string {
    if (this.#framing === 'converse') {
      const name = converseExceptions.has(exception) ? exception : 'internalServerException';
      return sse(name, JSON.stringify({ message }));
    }
    const type = betaErrorTypeByException[exception] ?? 'api_error';
    return sse('error', JSON.stringify({ type: 'error', error: { type, message } }));
  }

  #reframe(message: Message): string {
    const kind = headerText(message, ':message-type') ?? 'event';
    const payload = this.#toUtf8(message.body);
    if (kind === 'exception')
      return this.error(headerText(message, ':exception-type') ?? '', messageOf(payload));
    if (kind === 'error')
      return this.error(
        headerText(message, ':error-code') ?? '',
        headerText(message, ':error-message') ?? '',
      );
    const type = headerText(message, ':event-type') ?? '';
    if (this.#framing === 'converse') return sse(type, payload);
    return type === 'chunk' ? this.#anthropicEvent(payload) : '';
  }

  #anthropicEvent(payload: string): string {
    const chunk: unknown = JSON.parse(payload);
    if (!isJsonObject(chunk) || typeof chunk.bytes !== 'string') return '';
    const text = Buffer.from(chunk.bytes, 'base64').toString('utf8');
    const event: unknown = JSON.parse(text);
    if (!isJsonObject(event) || typeof event.type !== 'string') return '';
    const metrics = event['amazon-bedrock-invocationMetrics'];
    if (event.type !== 'message_stop' || !isJsonObject(metrics)) return sse(event.type, text);
    const usage: Record<string, number> = {};
    if (typeof metrics.inputTokenCount === 'number') usage.input_tokens = metrics.inputTokenCount;
    if (typeof metrics.outputTokenCount === 'number') usage.output_tokens = metrics.outputTokenCount;
    const delta = JSON.stringify({ type: 'message_delta', delta: {}, usage });
    return sse('message_delta', delta) + sse(event.type, text);
  }
}
