/**
 * A bearer token shared by every request of one provider: fetched once, reused while it has time
 * left, fetched again shortly before it expires, and never fetched twice at once — concurrent
 * requests that find it stale wait for the same refresh. The cloud libraries cache too, but their
 * per-call path is async work and their sharing of a refresh is an implementation detail; this is
 * the one place the gateway's rule ("no token fetch per request") is kept and tested.
 */

/** A token and when it stops being valid (Unix ms; undefined when the source does not say). */
export interface ExpiringToken {
  readonly token: string;
  readonly expiresAt: number | undefined;
}

/** The most a token is refreshed ahead of its expiry (the Google and Azure libraries use 5 minutes). */
const refreshAheadMs = 5 * 60_000;
/** A token whose lifetime is unknown is asked for again after this long (the library still caches it). */
const unknownLifetimeMs = 60_000;

export class CachedToken {
  readonly #fetch: () => Promise<ExpiringToken>;
  readonly #now: () => number;
  #token: string | undefined;
  /** When the cached token stops being used (ahead of its real expiry). */
  #renewAt = 0;
  #inFlight: Promise<string> | undefined;

  constructor(fetch: () => Promise<ExpiringToken>, now: () => number = Date.now) {
    this.#fetch = fetch;
    this.#now = now;
  }

  /** The current token, from the cache while it has time left. */
  get(): Promise<string> {
    if (this.#token !== undefined && this.#now() < this.#renewAt) return Promise.resolve(this.#token);
    this.#inFlight ??= this.#refresh().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #refresh(): Promise<string> {
    const fetchedAt = this.#now();
    const { token, expiresAt } = await this.#fetch();
    // A short-lived token is renewed half-way through its life rather than on every call.
    const lifetime = expiresAt === undefined ? 2 * unknownLifetimeMs : expiresAt - fetchedAt;
    this.#token = token;
    this.#renewAt = fetchedAt + lifetime - Math.min(refreshAheadMs, lifetime / 2);
    return token;
  }
}
