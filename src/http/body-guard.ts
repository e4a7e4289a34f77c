/**
 * What reading request bodies may cost the gateway, across all requests at once:
 *
 * - memory: a global cap on the bytes of bodies being read. A body whose declared length does not
 *   fit is refused before a byte of it is read (the overloaded error, `retry-after: 1`); a chunked
 *   body takes its bytes as they arrive and is cut when they stop fitting. Bodies over 1 MiB may
 *   fill three quarters of the cap only: the last quarter stays for ordinary (small) requests, so
 *   a few large uploads cannot stop every chat request. Bytes are given back when the read ends
 *   (the parsed body belongs to the request from then on).
 * - time: a read deadline for the whole body, and a minimum rate over every window of
 *   `rateWindowMs` (at least `minBytesPerSecond` × window, or the rest of the body): a trickle, a
 *   `{` held open, or a body sent fast and then stopped one byte short gets a 408 within seconds.
 *   One timer sweeps every read in progress (it stops once nothing is being read); a window that
 *   falls short is judged again at the next sweep, so bytes that waited in the socket while the
 *   event loop was busy are counted before a read is cut.
 */
import { InFlight } from './in-flight.ts';
import type { InFlightEntry } from './in-flight.ts';
import { GatewayError } from '../ir/index.ts';

export interface BodyGuardOptions {
  /** Bytes of request bodies being read at once, all requests together. */
  maxBytesReading: number;
  /** The whole body must arrive within this, from the start of the read. */
  readTimeoutMs: number;
  /** Arrival rate a body must keep over every `rateWindowMs`. */
  minBytesPerSecond: number;
  rateWindowMs?: number;
  sweepMs?: number;
  /** `performance.now()`-like milliseconds; injectable for tests. */
  clock?: () => number;
}

/** Bodies larger than this may take three quarters of the byte cap, no more. */
const largeBodyBytes = 1024 * 1024;

export class BodyGuard {
  readonly #options: Required<BodyGuardOptions>;
  readonly #reads = new InFlight<BodyWatch>();
  readonly #largeLimit: number;
  #reading = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: BodyGuardOptions) {
    this.#options = { rateWindowMs: 2_000, sweepMs: 250, clock: () => performance.now(), ...options };
    this.#largeLimit = Math.floor((options.maxBytesReading * 3) / 4);
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
    if (declared !== undefined && !this.take(declared, declared > largeBodyBytes))
      throw busy(this.#options.maxBytesReading);
    const watch = new BodyWatch(this, declared, this.#options.clock());
    watch.entry = this.#reads.add(watch);
    this.#timer ??= setInterval(() => this.#sweep(), this.#options.sweepMs).unref();
    return watch;
  }

  /** @internal Takes `bytes` under the cap (a large body under its three quarters); false when they do not fit. */
  take(bytes: number, large: boolean): boolean {
    const limit = large ? this.#largeLimit : this.#options.maxBytesReading;
    if (this.#reading + bytes > limit) return false;
    this.#reading += bytes;
    return true;
  }

  /** @internal The read ended: its bytes are given back and it is no longer watched. */
  finish(watch: BodyWatch, bytes: number): void {
    this.#reading -= bytes;
    if (watch.entry !== undefined) this.#reads.delete(watch.entry);
  }

  #sweep(): void {
    // Stopped by the sweep that finds nothing to watch, not by each read's end: a busy gateway
    // does not start and stop a timer per request.
    if (this.#reads.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const { readTimeoutMs, minBytesPerSecond, rateWindowMs } = this.#options;
    const now = this.#options.clock();
    for (const watch of this.#reads) {
      if (now - watch.startedAt > readTimeoutMs) {
        watch.cut(
          new GatewayError(
            'request_timeout',
            `the request body was not complete within ${readTimeoutMs / 1000} s`,
          ),
        );
        continue;
      }
      const since = now - watch.windowAt;
      if (since < rateWindowMs) continue;
      const arrived = watch.received - watch.windowBytes;
      const rest = (watch.declared ?? Number.POSITIVE_INFINITY) - watch.windowBytes;
      if (arrived >= Math.min(rest, (minBytesPerSecond * since) / 1000)) {
        watch.windowAt = now;
        watch.windowBytes = watch.received;
        watch.late = false;
      } else if (!watch.late) {
        watch.late = true;
      } else {
        watch.cut(
          new GatewayError(
            'request_timeout',
            `the request body is arriving slower than ${minBytesPerSecond} bytes per second`,
          ),
        );
      }
    }
  }
}

/** One body being read. */
export class BodyWatch {
  readonly startedAt: number;
  readonly declared: number | undefined;
  received = 0;
  /** Where the current rate window began, and the bytes received by then. */
  windowAt: number;
  windowBytes = 0;
  /** The last sweep found the window short. */
  late = false;
  /** @internal Its place among the guard's reads. */
  entry: InFlightEntry<BodyWatch> | undefined;
  /** Set by the reader: ends the read with this error (the sweep found it too slow). */
  onCut: ((error: GatewayError) => void) | undefined;
  readonly #guard: BodyGuard;
  #held: number;
  #finished = false;

  constructor(guard: BodyGuard, declared: number | undefined, startedAt: number) {
    this.#guard = guard;
    this.declared = declared;
    this.startedAt = startedAt;
    this.windowAt = startedAt;
    this.#held = declared ?? 0;
  }

  /** Bytes arrived; the error when a body without a declared length no longer fits under the cap. */
  receive(bytes: number): GatewayError | undefined {
    this.received += bytes;
    if (this.declared !== undefined) return undefined;
    if (!this.#guard.take(bytes, this.#held + bytes > largeBodyBytes)) return busy(undefined);
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
    { retryAfterSeconds: 1 },
  );
}
