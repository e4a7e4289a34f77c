/**
 * Failed dashboard sign-ins per client address: past `maxFailures` in a minute that address is
 * refused until the minute is over, so the admin key cannot be guessed at speed. In memory, per
 * process; the table is bounded (the oldest entries go first).
 */
const windowMs = 60_000;
const maxFailures = 10;
const maxAddresses = 10_000;

export class LoginThrottle {
  readonly #clock: () => number;
  readonly #failures = new Map<string, { since: number; count: number }>();

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  blocked(address: string): boolean {
    const entry = this.#failures.get(address);
    if (entry === undefined) return false;
    if (this.#clock() - entry.since >= windowMs) {
      this.#failures.delete(address);
      return false;
    }
    return entry.count >= maxFailures;
  }

  failed(address: string): void {
    const now = this.#clock();
    const entry = this.#failures.get(address);
    if (entry !== undefined && now - entry.since < windowMs) {
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
}
