/**
 * A circuit breaker per deployment: closed (calls flow) → open after `failureThreshold` consecutive
 * failures (calls skip it) → half-open after `cooldownMs` (one probe call at a time) → closed on a
 * successful probe, open again on a failed one. Time comes from the caller (injectable clock).
 */
import type { BreakerConfig } from '../config/config.ts';

export type BreakerState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  #state: BreakerState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #probing = false;
  /** Times the circuit opened (for health). */
  #opens = 0;
  /** Moves into each state since start (for metrics): a probe taking a cooled circuit is half-open. */
  readonly #transitions: Record<BreakerState, number> = { closed: 0, open: 0, 'half-open': 0 };

  constructor(config: BreakerConfig) {
    this.#threshold = config.failureThreshold;
    this.#cooldownMs = config.cooldownMs;
  }

  /** May a call start now? (No side effect: `begin` takes the half-open probe.) */
  allows(now: number): boolean {
    if (this.#state === 'closed') return true;
    if (this.#state === 'open') return now >= this.#openedAt + this.#cooldownMs;
    return !this.#probing;
  }

  /** A call starts: past the cool-down, the first one becomes the half-open probe. */
  begin(now: number): void {
    if (this.#state === 'closed') return;
    if (this.#state === 'open' && now >= this.#openedAt + this.#cooldownMs) {
      this.#state = 'half-open';
      this.#transitions['half-open']++;
    }
    if (this.#state === 'half-open') this.#probing = true;
  }

  succeed(): void {
    if (this.#state !== 'closed') this.#transitions.closed++;
    this.#state = 'closed';
    this.#failures = 0;
    this.#probing = false;
  }

  fail(now: number): void {
    if (this.#threshold === 0) return;
    this.#failures++;
    if (this.#state === 'half-open' || this.#failures >= this.#threshold) {
      if (this.#state !== 'open') {
        this.#opens++;
        this.#transitions.open++;
      }
      this.#state = 'open';
      this.#openedAt = now;
    }
    this.#probing = false;
  }

  /** The call ended without a verdict (the client left): a probe slot is freed. */
  release(): void {
    this.#probing = false;
  }

  /** Moves into each state since start. */
  get transitions(): Readonly<Record<BreakerState, number>> {
    return this.#transitions;
  }

  /** Milliseconds until an open circuit lets a probe through (0 when calls may start). */
  waitMs(now: number): number {
    if (this.#state !== 'open') return 0;
    return Math.max(0, this.#openedAt + this.#cooldownMs - now);
  }

  state(now: number): BreakerState {
    if (this.#state === 'open' && now >= this.#openedAt + this.#cooldownMs) return 'half-open';
    return this.#state;
  }

  snapshot(now: number): {
    state: BreakerState;
    consecutiveFailures: number;
    opens: number;
    retryInMs: number;
  } {
    return {
      state: this.state(now),
      consecutiveFailures: this.#failures,
      opens: this.#opens,
      retryInMs: this.waitMs(now),
    };
  }
}
