/**
 * The ledger's local outbox (an embedded node:sqlite file, WAL): with PostgreSQL every ledger batch
 * is first written here — the same local, synchronous, crash-safe write as the embedded store's —
 * and shipped to the server from here (`ledger-shipper.ts`). A PostgreSQL outage therefore loses
 * nothing and costs no memory: rows wait on disk, in order, until the server answers again.
 *
 * Several processes on one machine (workers, instances) may share the file: one of them at a time
 * holds the shipping lease (renewed while it ships, free once it expires), so rows are not sent
 * twice by two shippers at once — and if they were, the server's unique attempt id keeps one.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { LedgerRow, LedgerWriter } from '../../usage/ledger.ts';
import type { LedgerTarget, OpenLedgerWriter } from '../../usage/ledger-thread.ts';
import { createPrivately } from '../sqlite/database.ts';

export interface OutboxEntry {
  seq: number;
  row: LedgerRow;
}

/** The ledger's thread appends to the outbox file through this module, on a connection of its own. */
export function outboxLedgerTarget(path: string): LedgerTarget {
  return { writerModule: import.meta.url, path };
}

/** The ledger's thread's writer (`outboxLedgerTarget`). */
export const openLedgerWriter: OpenLedgerWriter = (path) => {
  const outbox = new LedgerOutbox(path);
  return { writer: outbox, close: () => outbox.close() };
};

/** Rows per multi-row INSERT. */
const chunkRows = 64;

export class LedgerOutbox implements LedgerWriter {
  readonly path: string;
  readonly #database: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #insertChunk: StatementSync;
  readonly #take: StatementSync;
  readonly #remove: StatementSync;
  readonly #count: StatementSync;
  readonly #first: StatementSync;
  readonly #lease: StatementSync;
  readonly #reject: StatementSync;
  readonly #release: StatementSync;

  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') createPrivately(path);
    this.#database = new DatabaseSync(path);
    this.#database.exec(
      // The busy timeout first: the workers of an instance open the file at the same moment. The
      // tables in one IMMEDIATE transaction: it waits for the write lock (busy timeout) from the
      // start, where a statement that reads the schema and then writes would be refused at once
      // (SQLite's deadlock rule) while another process creates them.
      `PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
       BEGIN IMMEDIATE;
       CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, row TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS rejected (seq INTEGER PRIMARY KEY, row TEXT NOT NULL, reason TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS ship_lease (
         name TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL
       );
       COMMIT;`,
    );
    const values = (rows: number): string => Array.from({ length: rows }, () => '(?)').join(', ');
    this.#insert = this.#database.prepare(`INSERT INTO outbox (row) VALUES ${values(1)}`);
    this.#insertChunk = this.#database.prepare(`INSERT INTO outbox (row) VALUES ${values(chunkRows)}`);
    this.#take = this.#database.prepare('SELECT seq, row FROM outbox ORDER BY seq LIMIT ?');
    this.#remove = this.#database.prepare('DELETE FROM outbox WHERE seq BETWEEN ? AND ?');
    this.#count = this.#database.prepare('SELECT count(*) AS n FROM outbox');
    this.#first = this.#database.prepare('SELECT seq FROM outbox LIMIT 1');
    this.#lease = this.#database.prepare(
      `INSERT INTO ship_lease (name, holder, until) VALUES ('ship', ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
       WHERE ship_lease.holder = excluded.holder OR ship_lease.until < ?`,
    );
    this.#reject = this.#database.prepare(
      `INSERT OR REPLACE INTO rejected (seq, row, reason) SELECT seq, row, ? FROM outbox WHERE seq = ?;`,
    );
    this.#release = this.#database.prepare(
      "UPDATE ship_lease SET until = 0 WHERE name = 'ship' AND holder = ?",
    );
  }

  /** One transaction per batch (the `UsageLedger` calls this off the request path). */
  write(batch: readonly LedgerRow[]): void {
    this.#database.exec('BEGIN');
    try {
      let index = 0;
      for (; index + chunkRows <= batch.length; index += chunkRows) {
        const values: SQLInputValue[] = [];
        for (let offset = 0; offset < chunkRows; offset++) values.push(JSON.stringify(batch[index + offset]));
        this.#insertChunk.run(...values);
      }
      for (; index < batch.length; index++) this.#insert.run(JSON.stringify(batch[index]));
      this.#database.exec('COMMIT');
    } catch (error) {
      if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
      throw error;
    }
  }

  /** The oldest rows, in the order they were written. */
  take(limit: number): OutboxEntry[] {
    const rows = this.#take.all(limit) as unknown as { seq: number; row: string }[];
    // A row queued by an older version lacks the newer fields (reasoning tokens: 0).
    return rows.map((entry) => {
      const row = JSON.parse(entry.row) as Omit<LedgerRow, 'reasoningTokens'> & { reasoningTokens?: number };
      return { seq: entry.seq, row: { ...row, reasoningTokens: row.reasoningTokens ?? 0 } };
    });
  }

  /** Forgets rows the server has (from `take`: a run of the lowest sequence numbers). */
  remove(entries: readonly OutboxEntry[]): void {
    const first = entries[0];
    const last = entries.at(-1);
    if (first !== undefined && last !== undefined) this.#remove.run(first.seq, last.seq);
  }

  /**
   * Moves a row the server refuses for what it holds (not for being unreachable) out of the way, to
   * the `rejected` table of this file, so it cannot hold up every row after it. Kept for an operator.
   */
  reject(entry: OutboxEntry, reason: string): void {
    this.#database.exec('BEGIN');
    try {
      this.#reject.run(reason.slice(0, 500), entry.seq);
      this.#remove.run(entry.seq, entry.seq);
      this.#database.exec('COMMIT');
    } catch (error) {
      if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
      throw error;
    }
  }

  hasRows(): boolean {
    return this.#first.get() !== undefined;
  }

  count(): number {
    return (this.#count.get() as { n: number }).n;
  }

  /** Takes or renews the shipping lease; false while another live process holds it. */
  lease(holder: string, now: number, ttlMs: number): boolean {
    return Number(this.#lease.run(holder, now + ttlMs, now).changes) > 0;
  }

  release(holder: string): void {
    this.#release.run(holder);
  }

  close(): void {
    this.#database.close();
  }
}
