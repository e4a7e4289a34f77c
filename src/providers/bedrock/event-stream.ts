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
 * AWS caps an event-stream message at 16 MiB of payload plus 128 KiB of headers; a prelude that
 * declares more is a corrupt or hostile stream, refused before any of it is held.
 */
export const maxFrameBytes = 16 * 1024 * 1024 + 128 * 1024 + 16;

/**
 * Whole frames out of bytes cut anywhere. The codec decodes one complete frame at a time (the SDK
 * splits them the same way, by the total length its prelude starts with); the checksums are the
 * codec's to verify. Linear in bytes: the pieces of a partial frame are held as they came and
 * joined once, when the frame is whole; a frame is bounded by `maxFrameBytes`.
 */
export class FrameSplitter {
  #pieces: Uint8Array[] = [];
  #held = 0;
  /** The frame being gathered's total length, once its 4-byte prelude start is known. */
  #wanted: number | undefined;

  push(chunk: Uint8Array): Uint8Array[] {
    const frames: Uint8Array[] = [];
    this.#pieces.push(chunk);
    this.#held += chunk.length;
    for (;;) {
      if (this.#wanted === undefined) {
        if (this.#held < 4) break;
        const length = new DataView(this.#take(4, false).buffer).getUint32(0, false);
        // A frame is at least its prelude and checksums (16 bytes); less is a corrupt stream.
        if (length < 16) throw new Error('event stream frame shorter than its prelude');
        if (length > maxFrameBytes) throw new Error(`event stream frame of ${length} bytes is over the cap`);
        this.#wanted = length;
      }
      if (this.#held < this.#wanted) break;
      frames.push(this.#take(this.#wanted, true));
      this.#wanted = undefined;
    }
    return frames;
  }

  /** The first `count` held bytes, copied into one array; removed from what is held when `consume`. */
  #take(count: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    let index = 0;
    while (filled < count) {
      const piece = this.#pieces[index] as Uint8Array;
      const used = Math.min(piece.length, count - filled);
      out.set(piece.subarray(0, used), filled);
      filled += used;
      if (consume && used === piece.length) index++;
      else if (consume) this.#pieces[index] = piece.subarray(used);
      else if (used === piece.length) index++;
    }
    if (consume) {
      this.#pieces.splice(0, index);
      this.#held -= count;
    }
    return out;
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
