/**
 * Whole SSE events out of a byte stream, as the text they came in: for a stream forwarded as it
 * came, which needs only where its events end and reads few of them (`parse-sse.ts` reads them
 * all). Text in (the caller decodes the bytes with a streaming decoder, so a character split across
 * chunks arrives whole); linear (each text searched once, an unfinished event kept as pieces
 * joined when it ends); one event capped like the parser's (`SseEventTooLarge`: its text, field
 * names included).
 *
 * Only `\n` line ends are scanned: the first `\r` makes `take` answer undefined, and the caller
 * hands the stream (`rest()` first) to the full parser, which knows every line end.
 */
import { SseEventTooLarge } from './parse-sse.ts';

export class SseEventScanner {
  readonly #maxEventChars: number;
  /** The unfinished event, in the pieces it arrived in. */
  #pending: string[] = [];
  #pendingLength = 0;
  /** The unfinished event ends with `\n`: a `\n` starting the next chunk ends the event. */
  #pendingNewline = false;

  constructor(maxEventChars: number = Number.POSITIVE_INFINITY) {
    this.#maxEventChars = maxEventChars;
  }

  /**
   * The events `text` completes, as one text: each event ends with its blank line (`\n\n`); ''
   * when none ended. Undefined once the stream uses `\r` line ends (the caller then parses).
   */
  take(text: string): string | undefined {
    if (text.includes('\r')) {
      this.#hold(text);
      return undefined;
    }
    let cut = text.lastIndexOf('\n\n');
    if (cut !== -1) cut += 2;
    else if (this.#pendingNewline && text.charCodeAt(0) === 0x0a) cut = 1;
    if (cut === -1) {
      this.#hold(text);
      this.#checkSize();
      return '';
    }
    // Joined in one go: a flat string, which the searches over it read fast (a `+` would make a rope).
    let whole: string;
    if (this.#pendingLength === 0) whole = text.slice(0, cut);
    else {
      this.#pending.push(text.slice(0, cut));
      whole = this.#pending.join('');
    }
    this.#pending = [];
    this.#pendingLength = 0;
    this.#pendingNewline = false;
    if (cut < text.length) {
      this.#hold(text.slice(cut));
      this.#checkSize();
    }
    return whole;
  }

  /** What is held (an unfinished event): for the parser, or at the end. */
  rest(): string {
    const rest = this.#pending.join('');
    this.#pending = [];
    this.#pendingLength = 0;
    this.#pendingNewline = false;
    return rest;
  }

  #hold(text: string): void {
    if (text.length === 0) return;
    this.#pending.push(text);
    this.#pendingLength += text.length;
    this.#pendingNewline = text.charCodeAt(text.length - 1) === 0x0a;
  }

  #checkSize(): void {
    if (this.#pendingLength <= this.#maxEventChars) return;
    this.#pending = [];
    this.#pendingLength = 0;
    throw new SseEventTooLarge(this.#maxEventChars);
  }
}

/** Where the event that starts at `start` in a text of whole events ends (after its blank line). */
export function eventEnd(text: string, start: number): number {
  const blank = text.indexOf('\n\n', start);
  return blank === -1 ? text.length : blank + 2;
}

/**
 * Where the event that starts at `start` ends, when it is plain: one `data: {…}` line (a JSON
 * object's braces, its content not checked), after at most one `event: NAME` line; -1 otherwise.
 */
export function plainEventEnd(text: string, start: number): number {
  let line = start;
  if (text.startsWith('event: ', start)) {
    line = text.indexOf('\n', start) + 1;
    if (line === 0) return -1;
  }
  if (!text.startsWith('data: {', line)) return -1;
  const end = text.indexOf('\n', line);
  if (end === -1 || text.charCodeAt(end + 1) !== 0x0a || text.charCodeAt(end - 1) !== 0x7d) return -1;
  return end + 2;
}
