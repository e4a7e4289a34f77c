/**
 * What reading request bodies may cost the gateway, across all requests at once:
 *
 * - memory: a global cap on the bytes of bodies being read. A body whose declared length does not
 *   fit is refused before a byte of it is read (the overloaded error, `retry-after: 1`); a chunked
 *   body takes its bytes as they arrive and is cut when they stop fitting. Bytes are given back
 *   when the read ends (the parsed body belongs to the request from then on).
 * - time: a read deadline for the whole body and, from `rateGraceMs` on, a minimum average rate
 *   (received ≥ rate × elapsed, or the whole body): a client holding a slot with a trickle (or
 *   with `{` and nothing more) gets a 408 within seconds. One timer sweeps every read in progress
 *   (it stops once nothing is being read), and a read is cut only on the second sweep that finds it
 *   late, so a read delayed by a busy event loop (its bytes waiting in the socket) is not cut.
 */
import { GatewayError } from '../ir/index.ts';

export interface BodyGuardOptions {
  /** Bytes of request bodies being read at once, all requests together. */
  maxBytesReading: number;
  /** The whole body must arrive within this, from the start of the read. */
  readTimeoutMs: number;
  /** Average arrival rate a body must keep after `rateGraceMs`. */
  minBytesPerSecond: number;
  rateGraceMs?: number;
  sweepMs?: number;
  /** `performance.now()`-like milliseconds; injectable for tests. */
  clock?: () => number;
}

export class BodyGuard {
  readonly #options: Required<BodyGuardOptions>;
  readonly #reads = new Set<BodyWatch>();
  #reading = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: BodyGuardOptions) {
    this.#options = { rateGraceMs: 2_000, sweepMs: 250, clock: () => performance.now(), ...options };
  }

  /** Bytes of bodies being read now. */
  get bytesReading(): number {
    return this.#reading;
  }

  /**
   * Starts watching a body about to be read (`declared`: its content-length, when it has one).
   * Throws the overloaded error when its declared bytes do not fit under the cap.
   */
  start(declared: number | undefined): BodyWatch {
    if (declared !== undefined && !this.#take(declared)) throw busy(this.#options.maxBytesReading);
    const watch = new BodyWatch(this, declared, this.#options.clock());
    this.#reads.add(watch);
    this.#timer ??= setInterval(() => this.#sweep(), this.#options.sweepMs).unref();
    return watch;
  }

  /** @internal A chunked body's bytes as they come; false when they do not fit. */
  take(bytes: number): boolean {
    return this.#take(bytes);
  }

  /** @internal The read ended: its bytes are given back and it is no longer watched. */
  finish(watch: BodyWatch, bytes: number): void {
    this.#reading -= bytes;
    this.#reads.delete(watch);
  }

  #take(bytes: number): boolean {
    if (this.#reading + bytes > this.#options.maxBytesReading) return false;
    this.#reading += bytes;
    return true;
  }

  #sweep(): void {
    const { readTimeoutMs, minBytesPerSecond, rateGraceMs } = this.#options;
    // Stopped by the sweep that finds nothing to watch, not by each read's end: a busy gateway
    // does not start and stop a timer per request.
    if (this.#reads.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = this.#options.clock();
    for (const watch of this.#reads) {
      const elapsed = now - watch.startedAt;
      let late: GatewayError | undefined;
      if (elapsed > readTimeoutMs) {
        late = new GatewayError(
          'request_timeout',
          `the request body was not complete within ${readTimeoutMs / 1000} s`,
        );
      } else if (elapsed >= rateGraceMs) {
        const due = Math.min(
          watch.declared ?? Number.POSITIVE_INFINITY,
          (minBytesPerSecond * elapsed) / 1000,
        );
        if (watch.received < due) {
          late = new GatewayError(
            'request_timeout',
            `the request body is arriving slower than ${minBytesPerSecond} bytes per second`,
          );
        }
      }
      if (late === undefined) watch.late = false;
      else if (!watch.late) watch.late = true;
      else watch.cut(late);
    }
  }
}

/** One body being read. */
export class BodyWatch {
  readonly startedAt: number;
  readonly declared: number | undefined;
  received = 0;
  /** The last sweep found it behind. */
  late = false;
  /** Set by the reader: ends the read with this error (the sweep found it too slow). */
  onCut: ((error: GatewayError) => void) | undefined;
  readonly #guard: BodyGuard;
  #held: number;
  #finished = false;

  constructor(guard: BodyGuard, declared: number | undefined, startedAt: number) {
    this.#guard = guard;
    this.declared = declared;
    this.startedAt = startedAt;
    this.#held = declared ?? 0;
  }

  /** Bytes arrived; the error when a body without a declared length no longer fits under the cap. */
  receive(bytes: number): GatewayError | undefined {
    this.received += bytes;
    if (this.declared !== undefined) return undefined;
    if (!this.#guard.take(bytes)) return busy(undefined);
    this.#held += bytes;
    return undefined;
  }

  cut(error: GatewayError): void {
    const onCut = this.onCut;
    this.finish();
    onCut?.(error);
  }

  /** The read ended (whole, failed or cut); idempotent. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.onCut = undefined;
    this.#guard.finish(this, this.#held);
  }
}

function busy(limit: number | undefined): GatewayError {
  const detail = limit === undefined ? '' : ` (${limit} bytes at once)`;
  return new GatewayError(
    'overloaded',
    `the gateway is busy reading other request bodies${detail}; retry shortly`,
    {
      retryAfterSeconds: 1,
    },
  );
}
