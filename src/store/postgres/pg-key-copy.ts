/**
 * The active keys of PostgreSQL, copied into memory: the gateway's key cache reads this copy
 * synchronously, so no request ever waits for the server. In the background, every `pollMs`, one
 * indexed row (the key generation a trigger bumps on every change) tells whether to read the keys
 * again; a change made through this process, or pushed from another instance, refreshes it at once.
 * While the server is unreachable the copy stays as last read (keys keep working, a revoke made
 * elsewhere applies once it answers again); the state change is logged once.
 */
import { activeKeyColumns, activeKeyRow, type ActiveKeyRow, type KeySource } from '../../keys/key-store.ts';
import type { Logger } from '../../log/logger.ts';
import type { PgConnection } from './connection.ts';

export class PgKeyCopy implements KeySource {
  readonly #connection: PgConnection;
  readonly #logger: Logger | undefined;
  #keys: ActiveKeyRow[] = [];
  /** The server's generation the copy was read at (NaN: never read). */
  #serverGeneration = Number.NaN;
  /** Bumped whenever the copy changes: what the cache compares. */
  #generation = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #healthy = true;

  constructor(connection: PgConnection, logger?: Logger) {
    this.#connection = connection;
    this.#logger = logger;
  }

  generation(): number {
    return this.#generation;
  }

  activeKeys(): ActiveKeyRow[] {
    return this.#keys;
  }

  /** Reads the keys now (whatever the generation says); throws when the server cannot answer. */
  async refresh(): Promise<void> {
    await this.#check(true);
  }

  /** Polls in the background (the timer never holds the process open). */
  start(pollMs: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.#check(false).then(
        () => {
          this.#health(true);
        },
        (error: unknown) => {
          this.#health(false, error);
        },
      );
    }, pollMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One check at a time: a slow server never piles up reads. */
  async #check(force: boolean): Promise<void> {
    if (this.#running !== undefined) {
      await this.#running;
      if (!force) return;
    }
    this.#running = this.#read(force);
    try {
      await this.#running;
    } finally {
      this.#running = undefined;
    }
  }

  async #read(force: boolean): Promise<void> {
    const [row] = await this.#connection.query<{ value: number }>(
      "SELECT value FROM store_generation WHERE name = 'client_keys'",
    );
    const generation = row?.value ?? 0;
    if (!force && generation === this.#serverGeneration) return;
    // Read after the generation: a change landing in between makes the next poll read again.
    const rows = await this.#connection.query<Parameters<typeof activeKeyRow>[0]>(
      `SELECT ${activeKeyColumns} FROM client_keys WHERE revoked_at IS NULL`,
    );
    this.#keys = rows.map(activeKeyRow);
    this.#serverGeneration = generation;
    this.#generation++;
  }

  #health(healthy: boolean, error?: unknown): void {
    if (healthy === this.#healthy) return;
    this.#healthy = healthy;
    if (healthy)
      this.#logger?.info('PostgreSQL reachable again: keys rechecked', { store: this.#connection.location });
    else
      this.#logger?.error('PostgreSQL unreachable: keys are served as last read', {
        store: this.#connection.location,
        cause: error instanceof Error ? error.message : 'unknown',
      });
  }
}
