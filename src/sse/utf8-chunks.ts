/**
 * Bytes → text for a body read in chunks, as a streaming `TextDecoder('utf-8')` gives it: a
 * character split across chunks arrives whole, bytes that are not UTF-8 become U+FFFD, and a
 * byte-order mark opening the stream is dropped. Node's `StringDecoder` does the decoding: on the
 * rig's 5 KiB stream read it takes 0.4 µs where `TextDecoder` takes 3.3 µs, on the path of every
 * stream's first byte. The BOM is the one difference between them, handled here.
 */
import { StringDecoder } from 'node:string_decoder';

const byteOrderMark = 0xfeff;

export class Utf8Chunks {
  readonly #decoder = new StringDecoder('utf8');
  /** Some text came out already: a U+FEFF after it is content. */
  #begun = false;

  /** The text `chunk` completes (an unfinished character at its end is held for the next). */
  decode(chunk: Uint8Array): string {
    return this.#opening(this.#decoder.write(chunk));
  }

  /** What is held at the end of the body: an unfinished character, as U+FFFD. */
  end(): string {
    return this.#opening(this.#decoder.end());
  }

  #opening(text: string): string {
    if (this.#begun || text.length === 0) return text;
    this.#begun = true;
    return text.charCodeAt(0) === byteOrderMark ? text.slice(1) : text;
  }
}
