/**
 * Incremental SSE parser (WHATWG event-stream rules): bytes in any split, UTF-8 safe, `\n`, `\r\n`
 * or `\r` line ends. Family-agnostic: it knows fields, not meanings.
 */
export interface SseMessage {
  /** The `event:` field, or undefined for the default `message` type. */
  event: string | undefined;
  /** All `data:` lines of the event joined by `\n`. */
  data: string;
}

export type SseEmit = (message: SseMessage) => void;

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  #buffer = '';
  #event: string | undefined = undefined;
  /** The event's `data:` lines joined by `\n` so far; undefined before its first one. */
  #data: string | undefined = undefined;
  /** A `\r` ended the previous chunk: a `\n` starting the next one belongs to it. */
  #pendingCarriageReturn = false;

  push(chunk: Uint8Array | string, emit: SseEmit): void {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#pendingCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCarriageReturn = false;
    this.#buffer += text;
    this.#drainLines(emit);
  }

  /** Flush at end of input: a final event without a trailing blank line still counts. */
  end(emit: SseEmit): void {
    this.#buffer += this.#decoder.decode();
    this.#drainLines(emit);
    if (this.#buffer.length > 0) this.#processLine(this.#buffer, emit);
    this.#buffer = '';
    this.#dispatch(emit);
  }

  #drainLines(emit: SseEmit): void {
    const buffer = this.#buffer;
    // Nearly every upstream ends lines with `\n` alone: then native indexOf finds them.
    const start = buffer.includes('\r')
      ? this.#drainAnyLineEnds(buffer, emit)
      : this.#drainNewlines(buffer, emit);
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
  }

  /** Processes the complete `\n`-ended lines; returns where the unfinished rest starts. */
  #drainNewlines(buffer: string, emit: SseEmit): number {
    let start = 0;
    let end = buffer.indexOf('\n');
    while (end !== -1) {
      this.#processLine(buffer.slice(start, end), emit);
      start = end + 1;
      end = buffer.indexOf('\n', start);
    }
    return start;
  }

  /** The same with `\r\n` and lone `\r` line ends too (a `\r` may end a chunk: see `push`). */
  #drainAnyLineEnds(buffer: string, emit: SseEmit): number {
    let start = 0;
    for (let position = 0; position < buffer.length; position++) {
      const code = buffer.charCodeAt(position);
      if (code !== 10 && code !== 13) continue;
      this.#processLine(buffer.slice(start, position), emit);
      if (code === 13) {
        if (position + 1 < buffer.length) {
          if (buffer.charCodeAt(position + 1) === 10) position++;
        } else {
          this.#pendingCarriageReturn = true;
        }
      }
      start = position + 1;
    }
    return start;
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
    else this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }

  #dispatch(emit: SseEmit): void {
    if (this.#data !== undefined) emit({ event: this.#event, data: this.#data });
    this.#event = undefined;
    this.#data = undefined;
  }
}
