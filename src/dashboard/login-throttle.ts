/**
 * Failed dashboard sign-ins per client address: `maxFailures` failures within a minute of the first
 * one lock that address out until that minute is over, so the admin key cannot be guessed at speed.
 * A locked-out address is refused before its form is read, the right key included; a sign-in that
 * succeeds clears its failures. Per process and in memory (with `--workers N` each worker keeps its
 * own), keyed by the connection's address (behind a proxy, the proxy's: every client shares one
 * lockout). The table is bounded: past `maxAddresses` the oldest entry goes.
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
