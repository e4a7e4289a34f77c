/**
 * One upstream HTTP call on undici's `dispatch` handler API, and its response as the gateway reads
 * it: status and headers, then the body either as an async iterator of chunks (streams, with
 * backpressure: the connection is paused while 64 KiB wait unread; a read takes all that waits) or whole as text (JSON answers).
 *
 * Ending: the body completes, the upstream fails (the reader gets the chunks already received,
 * then the error), the signal aborts (a timer or the client leaving), the reader cancels
 * (nothing more is read; the connection is destroyed unless the body had already ended), or a
 * body read whole passes `maxWholeBytes` (the chunks are dropped and the connection destroyed at
 * once: an upstream answering 3,000 MiB once took the gateway's RSS to 8 GB).
 */
import type { Dispatcher } from 'undici';
import type { HeaderMap } from '../codecs/codec.ts';
import { GatewayError } from '../ir/index.ts';
import type { UpstreamResponse } from './transport.ts';
import { abortError, toGatewayError } from './upstream-errors.ts';

/** Unread bytes that pause the connection until the next read. */
const pauseBytes = 65_536;

type Controller = Dispatcher.DispatchController;
type Pending = { resolve: (response: UpstreamResponse) => void; reject: (error: GatewayError) => void };

const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
const cancelledError = new Error('the gateway stopped reading the upstream response');

export class UpstreamCall
  implements Dispatcher.DispatchHandler, UpstreamResponse, AsyncIterator<Uint8Array, undefined>
{
  status = 0;
  headers: HeaderMap = {};
  readonly #signal: AbortSignal;
  #controller: Controller | undefined;
  #pending: Pending | undefined;
  #chunks: Buffer[] = [];
  #unreadBytes = 0;
  /** The whole body arrived. */
  #ended = false;
  /** Failed or cancelled: nothing more comes from upstream. */
  #stopped = false;
  #failure: GatewayError | undefined;
  /** Reading whole (`text()`): never paused. */
  #whole = false;
  /** Called when anything arrives or the call ends. */
  #waiter: (() => void) | undefined;
  readonly #maxWholeBytes: number;

  /** `maxWholeBytes`: the most a body read whole (`text()`) may hold. */
  constructor(signal: AbortSignal, maxWholeBytes: number = Number.POSITIVE_INFINITY) {
    this.#signal = signal;
    this.#maxWholeBytes = maxWholeBytes;
  }

  /** Dispatches the request; resolves with this response when its headers arrive. */
  start(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<UpstreamResponse> {
    if (this.#signal.aborted) return Promise.reject(abortError(this.#signal));
    return new Promise<UpstreamResponse>((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#signal.addEventListener('abort', this.#onAbort);
      try {
        dispatcher.dispatch(options, this);
      } catch (error) {
        this.#fail(toGatewayError(error, this.#signal));
      }
    });
  }

  // --- the handler undici calls ---

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    // Aborted or cancelled while queued for a connection: it must not go out now.
    if (this.#stopped) controller.abort(this.#failure ?? cancelledError);
  }

  onResponseStart(_controller: Controller, statusCode: number, headers: HeaderMap): void {
    if (statusCode < 200) return; // 1xx: informational, the real answer follows
    this.status = statusCode;
    this.headers = headers;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve(this);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#stopped) return;
    this.#chunks.push(chunk);
    this.#unreadBytes += chunk.length;
    if (this.#whole && this.#unreadBytes > this.#maxWholeBytes) {
      this.#chunks = [];
      this.#unreadBytes = 0;
      const error = responseTooLarge(this.#maxWholeBytes);
      this.#fail(error);
      controller.abort(error);
      return;
    }
    if (!this.#whole && this.#unreadBytes >= pauseBytes) controller.pause();
    this.#wake();
  }

  onResponseEnd(): void {
    if (this.#stopped) return;
    this.#ended = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#wake();
  }

  onResponseError(_controller: Controller, error: Error): void {
    this.#fail(toGatewayError(error, this.#signal));
  }

  // --- the response the gateway reads ---

  get body(): AsyncIterable<Uint8Array> {
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array, undefined> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array, undefined>> {
    const chunks = this.#chunks;
    if (chunks.length > 0) {
      // Everything that arrived since the last read, as one chunk: one pass of the reader (and one
      // write to the client) instead of one per network chunk.
      const chunk = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#unreadBytes);
      this.#chunks = [];
      this.#unreadBytes = 0;
      if (this.#controller?.paused === true) this.#controller.resume();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#ended || this.#stopped) return Promise.resolve(done);
    return new Promise((resolve, reject) => {
      this.#waiter = () => {
        this.next().then(resolve, reject);
      };
    });
  }

  /** `for await` left early (a break or a throw): stop the upstream. */
  return(): Promise<IteratorResult<Uint8Array, undefined>> {
    this.cancel();
    return Promise.resolve(done);
  }

  text(): Promise<string> {
    this.#whole = true;
    if (this.#unreadBytes > this.#maxWholeBytes) {
      this.#chunks = [];
      this.#unreadBytes = 0;
      const error = responseTooLarge(this.#maxWholeBytes);
      this.#fail(error);
      this.#controller?.abort(error);
    }
    if (this.#controller?.paused === true) this.#controller.resume();
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        if (this.#failure !== undefined) reject(this.#failure);
        else if (this.#ended) resolve(this.#drainText());
        else if (this.#stopped) resolve('');
        else this.#waiter = settle;
      };
      settle();
    });
  }

  textNow(): string | undefined {
    // Past the cap, failed or cancelled: `text()` says what happened, as before.
    if (!this.#ended || this.#stopped || this.#unreadBytes > this.#maxWholeBytes) return undefined;
    this.#whole = true;
    return this.#drainText();
  }

  cancel(): void {
    if (this.#ended || this.#stopped) return;
    this.#stop(undefined);
    this.#controller?.abort(cancelledError);
  }

  // --- internals ---

  readonly #onAbort = (): void => {
    const error = abortError(this.#signal);
    this.#fail(error);
    this.#controller?.abort(error);
  };

  #fail(error: GatewayError): void {
    if (this.#ended || this.#stopped) return;
    this.#stop(error);
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
  }

  #stop(failure: GatewayError | undefined): void {
    this.#stopped = true;
    this.#failure = failure;
    if (failure === undefined) {
      this.#chunks = [];
      this.#unreadBytes = 0;
    }
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    waiter();
  }

  /** The body as UTF-8 text, without a byte-order mark (as `Response.text()` does). */
  #drainText(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#unreadBytes = 0;
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/** An answer past `upstreamLimits.maxResponseBytes`: never retried (the upstream answered, and may bill); 502. */
export class ResponseTooLarge extends GatewayError {
  constructor(maxBytes: number) {
    super('upstream', `the upstream's answer exceeded the gateway's limit of ${maxBytes} bytes`);
  }
}

function responseTooLarge(maxBytes: number): GatewayError {
  return new ResponseTooLarge(maxBytes);
}
