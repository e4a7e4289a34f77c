/**
 * Incremental SSE parser (WHATWG event-stream rules): bytes in any split, UTF-8 safe, `\n`, `\r\n`
 * or `\r` line ends. Family-agnostic: it knows fields, not meanings.
 *
 * Linear in the input: each chunk is scanned once, and the unfinished line is kept as pieces joined
 * only when it ends (an upstream's 50 MiB line without a newline was once re-scanned on every
 * chunk, stalling the event loop for seconds). One event — its data so far plus the unfinished
 * line — may hold at most `maxEventChars` UTF-16 units (bytes, for ASCII); beyond that `push`
 * throws `SseEventTooLarge` and the parser drops what it held.
 */
import { GatewayError } from '../ir/index.ts';

export interface SseMessage {
  /** The `event:` field, or undefined for the default `message` type. */
  event: string | undefined;
  /** All `data:` lines of the event joined by `\n`. */
  data: string;
}

export type SseEmit = (message: SseMessage) => void;

/** An upstream event past the cap (config `upstreamLimits.maxEventBytes`). */
export class SseEventTooLarge extends GatewayError {
  constructor(limit: number) {
    super('upstream', `an event in the upstream's stream exceeded the gateway's limit of ${limit} bytes`);
  }
}

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxEventChars: number;
  /** The unfinished line, in the pieces it arrived in. */
  #pending: string[] = [];
  #pendingLength = 0;
  #event: string | undefined = undefined;
  /** The event's `data:` lines joined by `\n` so far; undefined before its first one. */
  #data: string | undefined = undefined;
  /** A `\r` ended the previous chunk: a `\n` starting the next one belongs to it. */
  #pendingCarriageReturn = false;

  constructor(maxEventChars: number = Number.POSITIVE_INFINITY) {
    this.#maxEventChars = maxEventChars;
  }

  push(chunk: Uint8Array | string, emit: SseEmit): void {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#pendingCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCarriageReturn = false;
    this.#take(text, emit);
  }

  /** Flush at end of input: a final event without a trailing blank line still counts. */
  end(emit: SseEmit): void {
    this.#take(this.#decoder.decode(), emit);
    if (this.#pendingLength > 0) this.#processLine(this.#line(''), emit);
    this.#dispatch(emit);
  }

  #take(text: string, emit: SseEmit): void {
    // Nearly every upstream ends lines with `\n` alone: then native indexOf finds them.
    const start = text.includes('\r') ? this.#anyLineEnds(text, emit) : this.#newlines(text, emit);
    if (start < text.length) {
      this.#pending.push(start === 0 ? text : text.slice(start));
      this.#pendingLength += text.length - start;
      this.#checkSize();
    }
  }

  /** Processes the `\n`-ended lines of `text`; returns where its unfinished rest starts. */
  #newlines(text: string, emit: SseEmit): number {
    let start = 0;
    let end = text.indexOf('\n');
    while (end !== -1) {
      this.#processLine(this.#line(text.slice(start, end)), emit);
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    return start;
  }

  /** The same with `\r\n` and lone `\r` line ends too (a `\r` may end a chunk: see `push`). */
  #anyLineEnds(text: string, emit: SseEmit): number {
    let start = 0;
    for (let position = 0; position < text.length; position++) {
      const code = text.charCodeAt(position);
      if (code !== 10 && code !== 13) continue;
      this.#processLine(this.#line(text.slice(start, position)), emit);
      if (code === 13) {
        if (position + 1 < text.length) {
          if (text.charCodeAt(position + 1) === 10) position++;
        } else {
          this.#pendingCarriageReturn = true;
        }
      }
      start = position + 1;
    }
    return start;
  }

  /** A whole line: the pieces held so far, then `tail`. */
  #line(tail: string): string {
    if (this.#pendingLength === 0) return tail;
    const line = this.#pending.join('') + tail;
    this.#pending = [];
    this.#pendingLength = 0;
    return line;
  }

  #checkSize(): void {
    if (this.#pendingLength + (this.#data?.length ?? 0) <= this.#maxEventChars) return;
    this.#pending = [];
    this.#pendingLength = 0;
    this.#data = undefined;
    this.#event = undefined;
    throw new SseEventTooLarge(this.#maxEventChars);
  }

  #processLine(line: string, emit: SseEmit): void {
    if (line.length === 0) {
      this.#dispatch(emit);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" comment line
    const colon = line.indexOf(':');
    // The field name is compared in place (no slice): `data` and `event` are all that count.
    const fieldLength = colon === -1 ? line.length : colon;
    const isData = fieldLength === 4 && line.startsWith('data');
    if (!isData && !(fieldLength === 5 && line.startsWith('event'))) return;
    let start = colon === -1 ? line.length : colon + 1;
    if (line.charCodeAt(start) === 32) start++;
    const value = start === 0 ? line : line.slice(start);
    if (!isData) this.#event = value;
    else {
      this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
      this.#checkSize();
    }
  }

  #dispatch(emit: SseEmit): void {
    if (this.#data !== undefined) emit({ event: this.#event, data: this.#data });
    this.#event = undefined;
    this.#data = undefined;
  }
}
