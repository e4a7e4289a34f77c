/**
 * Where log lines go: one write per turn of the event loop, and a bound on what may wait unwritten.
 *
 * stderr to a file is written synchronously. To a pipe (a container runtime, a log shipper) Node
 * writes asynchronously and keeps in memory whatever the reader has not taken yet: a reader that
 * stops would grow the gateway by every line it logs (about 1 MB a second at 5,000 requests a
 * second) until it runs out of memory. Past `maxUnwrittenBytes` waiting, lines are dropped and
 * counted instead; once the reader has caught up, one line says how many were lost.
 */

/** What the sink needs of a stream (`process.stderr`, or any `Writable`). */
export interface LogStream {
  readonly writableLength: number;
  write(text: string): boolean;
}

export interface LogSinkOptions {
  /** Lines waiting in one turn that are written at once rather than at the turn's end. */
  flushAtBytes: number;
  /** Bytes the stream may hold unwritten before lines are dropped. */
  maxUnwrittenBytes: number;
  /** The line that reports `count` dropped lines (in the logger's format, without its newline). */
  droppedLine: (count: number) => string;
}

export class LogSink {
  readonly #stream: () => LogStream;
  readonly #options: LogSinkOptions;
  #pending = '';
  #scheduled = false;
  #dropped = 0;

  /** `stream` is read when first written to (`process.stderr` is made on first use). */
  constructor(stream: () => LogStream, options: LogSinkOptions) {
    this.#stream = stream;
    this.#options = options;
  }

  /** Lines dropped since the last report. */
  get dropped(): number {
    return this.#dropped;
  }

  readonly write = (line: string): void => {
    this.#pending += `${line}\n`;
    if (this.#pending.length >= this.#options.flushAtBytes) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.flush);
    }
  };

  readonly flush = (): void => {
    this.#scheduled = false;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    const stream = this.#stream();
    if (stream.writableLength > this.#options.maxUnwrittenBytes) {
      this.#dropped += countLines(text);
      return;
    }
    if (this.#dropped > 0) {
      stream.write(`${this.#options.droppedLine(this.#dropped)}\n`);
      this.#dropped = 0;
    }
    stream.write(text);
  };

  /** Lines logged but not yet handed to the stream, taken (for a synchronous write at exit). */
  takePending(): string {
    const text = this.#pending;
    this.#pending = '';
    return text;
  }
}

function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
