/**
 * What a stream sent the client, kept while it is written, so a stream that ends early (client
 * gone, upstream failed) can be counted from what it delivered (`StreamOutcome.delivered`). At
 * most `maxKeptChars` are kept; beyond that the count is scaled by length (framing is regular,
 * so the ratio holds).
 *
 * A translated stream keeps the canonical text of the events it encoded. A pass-through stream
 * never decodes its content events (that is its point), so it keeps the SSE it forwarded and
 * reads it back with the upstream's own decoder only when asked — only for a stream cut short.
 */
import type { StreamDecoder } from '../codecs/codec.ts';
import type { StreamEvent } from '../ir/index.ts';
import { SseParser } from '../sse/parse-sse.ts';
import { nothingDelivered, type DeliveredText } from './delivery.ts';

/** Characters kept, at most; beyond them the count is extrapolated by length. */
const maxKeptChars = 65_536;

/** The text an event adds to the answer: content, thinking, a tool's name, its arguments. */
function textOf(event: StreamEvent): string | undefined {
  // Thinking is output too: a thought cut short was delivered as far as it went.
  if (event.type === 'text-delta' || event.type === 'reasoning-delta') return event.text;
  if (event.type === 'tool-call-start') return event.name;
  if (event.type === 'tool-call-delta') return event.argumentsDelta;
  return undefined;
}

/** Pieces of text, the first `maxKeptChars` of them kept, all of them measured. */
class KeptText {
  readonly #kept: string[] = [];
  #keptChars = 0;
  #totalChars = 0;

  add(text: string): void {
    this.#totalChars += text.length;
    if (this.#keptChars >= maxKeptChars) return;
    this.#keptChars += text.length;
    this.#kept.push(text);
  }

  get text(): string {
    return this.#kept.join('');
  }

  /** How many times the kept text the whole is. */
  get scale(): number {
    return this.#keptChars > 0 && this.#totalChars > this.#keptChars ? this.#totalChars / this.#keptChars : 1;
  }
}

/** A translated stream's text: each event's as it is encoded, delivered once its text is written. */
export class DeliveredEvents {
  readonly #kept = new KeptText();
  #encoded: string[] = [];

  /** An event encoded for the client (its text is sent with the next write). */
  encoded(event: StreamEvent): void {
    const text = textOf(event);
    if (text !== undefined && text.length > 0) this.#encoded.push(text);
  }

  /** What was encoded so far is being written. */
  written(): void {
    for (const text of this.#encoded) this.#kept.add(text);
    this.#encoded = [];
  }

  readonly read = (): DeliveredText => ({ text: this.#kept.text, scale: this.#kept.scale });
}

/** A pass-through stream's SSE as it was written, read back with `createDecoder` when asked. */
export class DeliveredSse {
  readonly #kept = new KeptText();
  readonly #createDecoder: () => StreamDecoder;

  constructor(createDecoder: () => StreamDecoder) {
    this.#createDecoder = createDecoder;
  }

  written(text: string): void {
    if (text.length > 0) this.#kept.add(text);
  }

  readonly read = (): DeliveredText => {
    const sse = this.#kept.text;
    if (sse.length === 0) return nothingDelivered;
    const parser = new SseParser();
    const decoder = this.#createDecoder();
    const pieces: string[] = [];
    const emit = (event: StreamEvent): void => {
      const text = textOf(event);
      if (text !== undefined) pieces.push(text);
    };
    try {
      parser.push(sse, (message) => decoder.push(message, emit));
      parser.end((message) => decoder.push(message, emit));
    } catch {
      // A cut stream may end mid-message: what was decoded before still counts.
    }
    return { text: pieces.join(''), scale: this.#kept.scale };
  };
}
