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
    if (this.#pendingLength > 0) this.#processHeldLine('', emit);
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
    if (end !== -1 && this.#pendingLength > 0) {
      this.#processHeldLine(text.slice(0, end), emit);
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    // Read where they are: no line is sliced out (only a field's value is).
    while (end !== -1) {
      this.#processLine(text, start, end, emit);
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
      this.#processHeldLine(text.slice(start, position), emit);
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
  #processHeldLine(tail: string, emit: SseEmit): void {
    let line = tail;
    if (this.#pendingLength > 0) {
      line = this.#pending.join('') + tail;
      this.#pending = [];
      this.#pendingLength = 0;
    }
    this.#processLine(line, 0, line.length, emit);
  }

  #checkSize(): void {
    if (this.#pendingLength + (this.#data?.length ?? 0) <= this.#maxEventChars) return;
    this.#pending = [];
    this.#pendingLength = 0;
    this.#data = undefined;
    this.#event = undefined;
    throw new SseEventTooLarge(this.#maxEventChars);
  }

  /** The line `text[lineStart, lineEnd)`. */
  #processLine(text: string, lineStart: number, lineEnd: number, emit: SseEmit): void {
    if (lineEnd === lineStart) {
      this.#dispatch(emit);
      return;
    }
    // The field name (up to the first colon, else the whole line) is compared in place, never
    // searched for past the line: `data` and `event` are all that count; a comment (`:`) is neither.
    const isData = isField(text, lineStart, lineEnd, 'data');
    if (!isData && !isField(text, lineStart, lineEnd, 'event')) return;
    let start = lineStart + (isData ? 4 : 5);
    if (start < lineEnd) start++; // the colon
    if (start < lineEnd && text.charCodeAt(start) === 32) start++;
    const value = text.slice(start, lineEnd);
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

/** Whether the line `text[lineStart, lineEnd)` is field `name`: the name, then a colon or the line's end. */
function isField(text: string, lineStart: number, lineEnd: number, name: string): boolean {
  const nameEnd = lineStart + name.length;
  return (
    nameEnd <= lineEnd &&
    text.startsWith(name, lineStart) &&
    (nameEnd === lineEnd || text.charCodeAt(nameEnd) === 58)
  );
}
