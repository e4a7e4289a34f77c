/**
 * The one connection to Redis (or Valkey) a gateway process keeps, with what makes a shared store
 * safe on a request's path: a short command timeout (a frozen server costs tens of ms, not a hang),
 * no offline queue (a dead server fails at once), and a breaker that stops asking once failures
 * repeat, so a dead Redis costs nothing per request until a probe finds it back. Scripts are the
 * client's own (`scripts.ts`: EVALSHA, one round trip; node-redis sends EVAL on NOSCRIPT), loaded
 * on every (re)connect so a burst does not meet NOSCRIPT. Pub/sub uses a second connection.
 */
import { createClient } from 'redis';
import { scripts, type ScriptName } from './scripts.ts';

function connect(options: RedisOptions) {
  return createClient({
    url: options.url,
    scripts,
    // With the server gone a command fails at once (no queue); `run` bounds the wait itself.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: Math.max(options.commandTimeoutMs, 1_000),
      // Reconnect quickly and forever: the breaker, not the client, decides when to ask again.
      reconnectStrategy: (attempt: number) => Math.min(attempt * 50, 500),
    },
  });
}

type Client = ReturnType<typeof connect>;

export interface RedisOptions {
  url: string;
  /** Longest wait for one command. */
  commandTimeoutMs: number;
  /** Consecutive failures that open the breaker. */
  breakerFailures: number;
  /** How long an open breaker refuses before letting one probe through. */
  breakerCooldownMs: number;
  /** Told when the store becomes unreachable or reachable again (not per request). */
  onHealthChange?: (healthy: boolean, cause: string | undefined) => void;
  clock?: () => number;
}

/** The shared store could not answer (timeout, connection, breaker open). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export class RedisConnection {
  readonly #client: Client;
  readonly #options: RedisOptions;
  readonly #clock: () => number;
  #subscriber: Client | undefined;
  #failures = 0;
  #openUntil = 0;
  #probing = false;
  #healthy = true;
  /** Replies (and errors) the connection has given: progress, whichever command they answer. */
  #replies = 0;

  constructor(options: RedisOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#client = connect(options);
    // Errors surface through the commands; an unhandled 'error' event would crash the process.
    this.#client.on('error', () => undefined);
    this.#client.on('ready', () => {
      void this.#loadScripts();
    });
  }

  /**
   * Connects at start. Resolves true once connected, false when Redis has not answered within
   * `waitMs`: the gateway starts anyway (requests meet the failure policy) and the client keeps
   * reconnecting in the background.
   */
  async connect(waitMs = 5_000): Promise<boolean> {
    const connected = this.#client.connect().then(
      () => true,
      () => false,
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, waitMs);
    });
    const result = await Promise.race([connected, late]);
    clearTimeout(timer);
    if (!result) this.#failed(new Error(`no connection within ${waitMs} ms`));
    return result;
  }

  get healthy(): boolean {
    return this.#healthy;
  }

  /** Runs one of `scripts` (EVALSHA): one round trip. */
  async run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const now = this.#clock();
    if (now < this.#openUntil) throw new StoreUnavailableError('shared store unavailable (breaker open)');
    const probe = this.#openUntil !== 0;
    if (probe) {
      // Half open: one request probes, the others keep failing fast until it answers.
      if (this.#probing) throw new StoreUnavailableError('shared store unavailable (probing)');
      this.#probing = true;
    }
    try {
      const result = await this.#withTimeout(
        this.#client[name](keys, args.map(String)).finally(() => {
          this.#replies++;
        }),
      );
      this.#succeeded();
      return result;
    } catch (error) {
      this.#failed(error);
      throw new StoreUnavailableError(
        `shared store unavailable: ${error instanceof Error ? error.message : 'unknown'}`,
      );
    } finally {
      if (probe) this.#probing = false;
    }
  }

  /** Resolves when Redis answers a PING within the command timeout (`/readyz`). */
  async ping(): Promise<void> {
    await this.#withTimeout(this.#client.ping());
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#client.publish(channel, message);
  }

  /** Calls `listener` for every message on `channel` (a second connection, resubscribed on reconnect). */
  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    if (this.#subscriber === undefined) {
      this.#subscriber = this.#client.duplicate({ disableOfflineQueue: false });
      this.#subscriber.on('error', () => undefined);
      await this.#subscriber.connect();
      // node-redis subscribes again on its own after a reconnect.
    }
    await this.#subscriber.subscribe(channel, listener);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#client.close(), this.#subscriber?.close()]);
  }

  /**
   * Bounds the wait for one reply by what Redis does, not by this process (the client's own
   * command timeout did not fire on a frozen server here, node-redis 6.3). A burst against a
   * healthy Redis once met "rate limits cannot be checked" because the wait counted time the
   * command sat unwritten and its reply sat unread behind this process's own busy event loop and
   * pipeline. So:
   * - the clock starts once the command is written (node-redis writes in a `setImmediate`; this
   *   one is queued after it);
   * - when it runs out, the verdict waits one turn of the I/O phase, so replies already received
   *   are read first;
   * - it fails only when the connection gave no reply at all for a whole timeout: replies still
   *   coming mean the server is answering, and ours (in order behind them) is on its way.
   */
  #withTimeout<T>(pending: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const arm = (): void => {
        if (settled) return;
        const repliesBefore = this.#replies;
        timer = setTimeout(() => {
          setImmediate(() => {
            if (settled) return;
            if (this.#replies !== repliesBefore) arm();
            else reject(new Error(`no answer within ${this.#options.commandTimeoutMs} ms`));
          });
        }, this.#options.commandTimeoutMs);
      };
      setImmediate(arm);
      pending.then(
        (value) => {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          settled = true;
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Loads every script (after a restart or a flush the server has none), counting it as progress. */
  async #loadScripts(): Promise<void> {
    await Promise.allSettled(
      Object.values(scripts).map(async (code) => {
        await this.#client.scriptLoad(code.SCRIPT);
        this.#replies++;
      }),
    );
  }

  #succeeded(): void {
    this.#failures = 0;
    this.#openUntil = 0;
    if (!this.#healthy) {
      this.#healthy = true;
      this.#options.onHealthChange?.(true, undefined);
    }
  }

  #failed(error: unknown): void {
    this.#failures++;
    if (this.#failures >= this.#options.breakerFailures || this.#openUntil !== 0)
      this.#openUntil = this.#clock() + this.#options.breakerCooldownMs;
    if (this.#healthy) {
      this.#healthy = false;
      this.#options.onHealthChange?.(false, error instanceof Error ? error.message : 'unknown');
    }
  }
}
