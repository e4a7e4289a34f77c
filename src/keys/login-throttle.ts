/**
 * Admin-key guessing, throttled per client address — the dashboard's sign-in form, the admin API
 * and a protected `/metrics` share one throttle: `maxFailures` failures within a minute of the
 * first one lock that address out until that minute is over, so the admin key cannot be guessed at
 * speed. An attempt is decided and counted in one synchronous step (`reserve`: refused, or counted
 * as a failure until it `succeeded`), before its key or form is read — so concurrent attempts
 * cannot all pass a check made before any of them failed. A locked-out address is refused the
 * right key included; a success clears its failures. Per process and in memory (with `--workers N`
 * each worker keeps its own), keyed by the connection's address (behind a proxy, the proxy's:
 * every client shares one lockout). The table is bounded: past `maxAddresses` the oldest entry goes.
 */
export const loginWindowMs = 60_000;
export const maxLoginFailures = 10;
const maxAddresses = 10_000;

export class LoginThrottle {
  readonly #clock: () => number;
  readonly #failures = new Map<string, { since: number; count: number }>();

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** Milliseconds until `address` may try again; 0 when it may now. */
  lockedFor(address: string): number {
    const entry = this.#failures.get(address);
    if (entry === undefined) return 0;
    const left = entry.since + loginWindowMs - this.#clock();
    if (left <= 0) {
      this.#failures.delete(address);
      return 0;
    }
    return entry.count >= maxLoginFailures ? left : 0;
  }

  /**
   * One attempt for `address`: 0 when it may try (the attempt is counted as a failure now, and
   * forgotten by `succeeded`), else the milliseconds until it may.
   */
  reserve(address: string): number {
    const locked = this.lockedFor(address);
    if (locked > 0) return locked;
    this.failed(address);
    return 0;
  }

  failed(address: string): void {
    const now = this.#clock();
    const entry = this.#failures.get(address);
    if (entry !== undefined && now - entry.since < loginWindowMs) {
      entry.count++;
      return;
    }
    this.#failures.delete(address);
    if (this.#failures.size >= maxAddresses) {
      const oldest = this.#failures.keys().next();
      if (oldest.done !== true) this.#failures.delete(oldest.value);
    }
    this.#failures.set(address, { since: now, count: 1 });
  }

  succeeded(address: string): void {
    this.#failures.delete(address);
  }
}
