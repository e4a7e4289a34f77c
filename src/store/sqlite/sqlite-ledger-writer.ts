/**
 * The embedded store's ledger writer: a batch in one transaction, 64-row inserts, and the batch's
 * cost added to each key's lifetime spend in the same transaction (spend and ledger never disagree),
 * as are the dashboard's per-minute and per-hour rollups (`rollups.ts`).
 */
import type { StatementSync } from 'node:sqlite';
import { openDatabase, type Database } from './database.ts';
import type { LedgerRow, LedgerWriter } from '../../usage/ledger.ts';
import {
  ledgerColumnNames,
  ledgerColumns,
  rowIdentity,
  rowsPerChunk,
  type ColumnsWriter,
  type LedgerColumns,
} from '../../usage/ledger-columns.ts';
import type { LedgerTarget, OpenLedgerWriter } from '../../usage/ledger-thread.ts';
import { RollupWriter } from './sqlite-rollups.ts';

export class SqliteLedgerWriter implements LedgerWriter, ColumnsWriter {
  readonly #database: Database;
  /**
   * One multi-row INSERT per chunk size (64, 32, … 1 rows; `rowsPerChunk`), by its number of
   * values: a batch is written in whole chunks, largest first, so a batch of n rows takes at most
   * n / 64 + 6 statement runs. A busy process's 20 ms batch is often under 64 rows (each worker of
   * `--workers 2` writes half of them), and row-by-row inserts of the remainder cost the ledger's
   * thread twice as much per row.
   */
  readonly #inserts: ReadonlyMap<number, StatementSync>;
  readonly #addSpend: StatementSync;
  readonly #rollups: RollupWriter;
  readonly #findRow: StatementSync;

  constructor(database: Database) {
    this.#database = database;
    this.#inserts = new Map(
      rowsPerChunk.map((rows) => [rows * ledgerColumnNames.length, database.prepare(insertSql(rows))]),
    );
    this.#rollups = new RollupWriter(database);
    this.#addSpend = database.prepare(
      `INSERT INTO key_spend (key_id, spent_usd) VALUES (?, ?)
       ON CONFLICT (key_id) DO UPDATE SET spent_usd = spent_usd + excluded.spent_usd`,
    );
    // Through the (key_id, created_at) index: a handful of rows to compare at most.
    this.#findRow = database.prepare(
      `SELECT 1 AS found FROM usage_ledger
       WHERE key_id = ? AND created_at = ? AND request_id = ? AND attempt = ? LIMIT 1`,
    );
  }

  write(batch: readonly LedgerRow[]): void {
    this.writeColumns(ledgerColumns(batch), false);
  }

  /**
   * A batch sent again after the ledger's writer thread crashed or stopped answering: the one it was
   * committing may have committed before it could say so. A batch is one transaction, so its last
   * row tells whether all of it is there; asked under the write lock (IMMEDIATE), so a writer still
   * running elsewhere cannot commit it between the question and the insert.
   */
  writeOnce(batch: readonly LedgerRow[]): void {
    this.writeColumns(ledgerColumns(batch), true);
  }

  /** A batch as columns (`ledger-columns.ts`: what the ledger's thread is handed), one transaction. */
  writeColumns({ chunks, spend, rollups }: LedgerColumns, once: boolean): void {
    this.#database.exec(once ? 'BEGIN IMMEDIATE' : 'BEGIN');
    try {
      if (once && this.#holdsLastRow(chunks.at(-1))) {
        this.#database.exec('COMMIT');
        return;
      }
      for (const values of chunks) (this.#inserts.get(values.length) as StatementSync).run(...values);
      for (const [keyId, cost] of spend) this.#addSpend.run(keyId, cost);
      this.#rollups.write(rollups);
      this.#database.exec('COMMIT');
    } catch (error) {
      if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
      throw error;
    }
  }

  /** Whether the row at the end of the batch's last chunk is in the table. */
  #holdsLastRow(values: LedgerColumns['chunks'][number] | undefined): boolean {
    if (values === undefined) return false;
    const at = values.length - ledgerColumnNames.length;
    const value = (index: number): string | number | null => values[at + index] ?? null;
    return (
      this.#findRow.get(
        value(rowIdentity.keyId),
        value(rowIdentity.createdAt),
        value(rowIdentity.requestId),
        value(rowIdentity.attempt),
      ) !== undefined
    );
  }
}

/** The ledger's thread writes a store file through this module, on a connection of its own. */
export function embeddedLedgerTarget(path: string): LedgerTarget {
  return { writerModule: import.meta.url, path, takesColumns: true };
}

/** The ledger's thread's writer (`embeddedLedgerTarget`); the file's migrations are applied already. */
export const openLedgerWriter: OpenLedgerWriter = (path) => {
  const database = openDatabase(path);
  return { writer: new SqliteLedgerWriter(database), close: () => database.close() };
};

const rowPlaceholders = `(${ledgerColumnNames.map(() => '?').join(', ')})`;

function insertSql(rows: number): string {
  return `INSERT INTO usage_ledger (${ledgerColumnNames.join(', ')}) VALUES ${Array.from({ length: rows }, () => rowPlaceholders).join(', ')}`;
}
