/**
 * The timers of one upstream call, for any transport: first byte (from sending the request to the
 * first body byte, headers included: a stream's time to first token) and idle (between two body
 * chunks, reset by every chunk; a flowing stream has no total cap). Connecting has its own timer in
 * the HTTP client. A timer that fires aborts the call's signal with a `timeout` GatewayError; the
 * client's own disconnect aborts it too.
 *
 * One node timer per call, set when the call is armed: a chunk only notes its time. When the timer
 * runs out it looks at the notes (first byte still awaited, or the last chunk idle long enough)
 * and either fires or sets itself again for the time left. So a stream pays no timer operation per
 * chunk, and a call whose idle time is not shorter than its first-byte time (the defaults: both
 * 120 s) sets one timer in all.
 */
import type { TimeoutConfig } from '../config/config.ts';
import { GatewayError } from '../ir/index.ts';

export class CallTimers {
  readonly #controller = new AbortController();
  readonly #client: AbortSignal;
  readonly #timeouts: TimeoutConfig;
  #timer: NodeJS.Timeout | undefined;
  /** `performance.now()` when the timer runs out. */
  #timerDueAt = 0;
  /** `performance.now()` of the last body chunk. */
  #lastChunkAt = 0;
  #armed = false;
  #firstByte = true;
  #stopped = false;
  /** Which timer fired, as the error to report; undefined while none did. */
  fired: GatewayError | undefined;
  /** `performance.now()` when the call started. */
  readonly startedAt = performance.now();
  /** From the start to the first body chunk, once it arrived. */
  firstByteMs: number | undefined;

  /** A client that has already left aborts the call before anything is sent. */
  constructor(timeouts: TimeoutConfig, client: AbortSignal) {
    this.#client = client;
    this.#timeouts = timeouts;
    if (client.aborted) {
      this.#controller.abort(client.reason);
      this.#stopped = true;
    }
  }

  /**
   * Starts the first-byte timer and the watch on the client. Called right after the request is
   * handed to the transport (same tick, so nothing can be missed): the setup is then off the
   * request's path to the upstream. Later calls do nothing.
   */
  arm(): void {
    if (this.#armed || this.#stopped) return;
    this.#armed = true;
    this.#client.addEventListener('abort', this.#onClientAbort);
    this.#setTimer(this.#timeouts.firstByteMs, performance.now());
  }

  /** Aborts when a timer fires or the client leaves: give it to the transport. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** No body byte has arrived yet. */
  get waitingForFirstByte(): boolean {
    return this.#firstByte;
  }

  /** A body chunk arrived: the first one switches to the idle time, every one restarts it. */
  chunk(): void {
    if (this.#stopped) return;
    if (!this.#armed) this.arm(); // never leave a call unwatched
    const now = performance.now();
    this.#lastChunkAt = now;
    if (!this.#firstByte) return;
    this.#firstByte = false;
    this.firstByteMs = now - this.startedAt;
    // The timer runs to the first-byte deadline: set it again only when idle's comes sooner.
    const idleMs = this.#timeouts.idleMs;
    if (now + idleMs < this.#timerDueAt) {
      clearTimeout(this.#timer);
      this.#setTimer(idleMs, now);
    }
  }

  /**
   * A body read whole has arrived: its first byte is timed as `chunk()` would, and no idle timer
   * starts (nothing more can arrive to wait for), so the call's timers stop here.
   */
  complete(): void {
    if (this.#stopped) return;
    if (this.#firstByte) {
      this.#firstByte = false;
      this.firstByteMs = performance.now() - this.startedAt;
    }
    this.stop();
  }

  /** The call is over (answered, failed or abandoned): no timer may fire any more. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (this.#armed) this.#client.removeEventListener('abort', this.#onClientAbort);
  }

  /** Abort the call now (e.g. a fan-out sibling failed). */
  abort(reason: GatewayError): void {
    this.stop();
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  readonly #onClientAbort = (): void => {
    this.stop();
    this.#controller.abort(this.#client.reason);
  };

  #setTimer(ms: number, now: number): void {
    this.#timerDueAt = now + ms;
    this.#timer = setTimeout(this.#onTimer, ms);
  }

  /** The timer ran out: a timeout, unless chunks kept coming (then it runs on for the time left). */
  readonly #onTimer = (): void => {
    if (this.#stopped) return;
    if (this.#firstByte) {
      this.#fire(new GatewayError('timeout', 'the upstream did not start answering in time'));
      return;
    }
    const now = performance.now();
    const leftMs = this.#lastChunkAt + this.#timeouts.idleMs - now;
    // Within a millisecond counts as due: node's timers are millisecond-grained anyway.
    if (leftMs >= 1) this.#setTimer(Math.ceil(leftMs), now);
    else this.#fire(new GatewayError('timeout', 'the upstream stopped sending data'));
  };

  #fire(error: GatewayError): void {
    if (this.#stopped) return;
    this.fired = error;
    this.stop();
    this.#controller.abort(error);
  }
}
