/** The embedded store (Node's built-in SQLite, WAL mode). Nothing else imports the driver. */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { backfillSqliteRollups, type BackfillProgress } from '../rollup-backfill.ts';

/** A schema change: SQL, or SQL and then work (the rollups' backfill, which reports its progress). */
export type Migration = string | ((database: DatabaseSync, progress: BackfillProgress | undefined) => void);

export const migrations: readonly Migration[] = [
  `CREATE TABLE client_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     revoked_at INTEGER
   )`,
  // Version 2: key policies, spend, a generation counter the key cache polls, the usage ledger.
  `ALTER TABLE client_keys ADD COLUMN models TEXT;
   ALTER TABLE client_keys ADD COLUMN budget_usd REAL;
   ALTER TABLE client_keys ADD COLUMN rpm INTEGER;
   ALTER TABLE client_keys ADD COLUMN tpm INTEGER;
   ALTER TABLE client_keys ADD COLUMN expires_at INTEGER;
   ALTER TABLE client_keys ADD COLUMN updated_at INTEGER;
   CREATE UNIQUE INDEX client_keys_active_name ON client_keys (name) WHERE revoked_at IS NULL;
   CREATE TABLE key_spend (
     key_id TEXT PRIMARY KEY,
     spent_usd REAL NOT NULL DEFAULT 0
   );
   CREATE TABLE store_generation (
     name TEXT PRIMARY KEY,
     value INTEGER NOT NULL
   );
   INSERT INTO store_generation (name, value) VALUES ('client_keys', 0);
   CREATE TRIGGER client_keys_inserted AFTER INSERT ON client_keys BEGIN
     UPDATE store_generation SET value = value + 1 WHERE name = 'client_keys';
   END;
   CREATE TRIGGER client_keys_updated AFTER UPDATE ON client_keys BEGIN
     UPDATE store_generation SET value = value + 1 WHERE name = 'client_keys';
   END;
   CREATE TRIGGER client_keys_deleted AFTER DELETE ON client_keys BEGIN
     UPDATE store_generation SET value = value + 1 WHERE name = 'client_keys';
   END;
   CREATE TABLE usage_ledger (
     id INTEGER PRIMARY KEY,
     request_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     final INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     key_id TEXT NOT NULL,
     surface TEXT NOT NULL,
     model TEXT NOT NULL,
     family TEXT NOT NULL,
     upstream_model TEXT,
     stream INTEGER NOT NULL,
     status INTEGER NOT NULL,
     upstream_status INTEGER,
     outcome TEXT NOT NULL,
     error TEXT,
     prompt_tokens INTEGER NOT NULL,
     cached_tokens INTEGER NOT NULL,
     cache_write_tokens INTEGER NOT NULL,
     output_tokens INTEGER NOT NULL,
     cost_usd REAL NOT NULL,
     latency_ms REAL,
     ttft_ms REAL,
     overhead_ms REAL
   );
   CREATE INDEX usage_ledger_time ON usage_ledger (created_at);
   CREATE INDEX usage_ledger_key_time ON usage_ledger (key_id, created_at);`,
  // The deployment an attempt called (a model may have several).
  `ALTER TABLE usage_ledger ADD COLUMN deployment TEXT`,
  // 1 when the tokens were counted by the gateway (a stream that ended early), not reported upstream.
  `ALTER TABLE usage_ledger ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0`,
  // Stored Responses API answers (previous_response_id, GET/DELETE /v1/responses/{id}), per key.
  `CREATE TABLE responses (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     input_items TEXT NOT NULL,
     response TEXT NOT NULL
   );
   CREATE INDEX responses_expiry ON responses (expires_at);`,
  // Reasoning tokens (the metrics count them too) and the request's W3C trace id.
  `ALTER TABLE usage_ledger ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage_ledger ADD COLUMN trace_id TEXT;`,
  // The dashboard: per-minute and per-hour rollups kept by the ledger's own transactions (charts
  // never scan the ledger), one row per bucket and value of one dimension at a time (all, key,
  // model, family, model+deployment: never their cross product, which grows with every key and
  // model); latency histograms (log bins as `bin:count …` text, per model and for all models as
  // model ''); sessions (a digest of the session id only). Rows already written are rolled up here.
  (database, progress) => {
    database.exec(`CREATE TABLE usage_rollup (
     period INTEGER NOT NULL,
     dimension TEXT NOT NULL,
     bucket INTEGER NOT NULL,
     value TEXT NOT NULL,
     requests INTEGER NOT NULL,
     errors INTEGER NOT NULL,
     attempts INTEGER NOT NULL,
     retries INTEGER NOT NULL,
     fallbacks INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     cached_tokens INTEGER NOT NULL,
     cache_write_tokens INTEGER NOT NULL,
     output_tokens INTEGER NOT NULL,
     cost_usd REAL NOT NULL,
     overhead_ms REAL NOT NULL,
     overhead_count INTEGER NOT NULL,
     PRIMARY KEY (period, dimension, bucket, value)
   ) WITHOUT ROWID;
   CREATE TABLE latency_rollup (
     period INTEGER NOT NULL,
     model TEXT NOT NULL,
     bucket INTEGER NOT NULL,
     metric TEXT NOT NULL,
     counts TEXT NOT NULL,
     PRIMARY KEY (period, model, bucket, metric)
   ) WITHOUT ROWID;
   CREATE TABLE dashboard_sessions (
     id_hash TEXT PRIMARY KEY,
     csrf TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );`);
    backfillSqliteRollups(database, progress);
  },
  // Periodic budgets: so much per UTC day, week or month (keys/budget-period.ts), beside the lifetime one.
  `ALTER TABLE client_keys ADD COLUMN budget_period TEXT;
   ALTER TABLE client_keys ADD COLUMN period_budget_usd REAL;`,
  // Stored responses by reference: a continuation keeps only its own input and a pointer to the
  // response it continued (older rows, with no pointer, hold their whole conversation).
  `ALTER TABLE responses ADD COLUMN previous_id TEXT`,
];

export type Database = DatabaseSync;

/** WAL pages (4 KiB each) that trigger a checkpoint: small, so each is a short stall. */
export const walCheckpointPages = 128;

export function openDatabase(path: string, progress?: BackfillProgress): Database {
  return openMigrated(path, progress).database;
}

/** Opens the store and applies the migrations it lacks; says which version it was at before. */
export function openMigrated(
  path: string,
  progress?: BackfillProgress,
): { database: Database; from: number; to: number } {
  if (path !== ':memory:') createPrivately(path);
  const database = new DatabaseSync(path);
  // The busy timeout first: switching to WAL takes a lock another process opening the file at
  // the same moment may hold (instances sharing the file, started together).
  database.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  // SQLite copies the WAL into the database inside the commit that crosses this many pages, on
  // the event loop: at its default (1,000 pages, 4 MiB) the ledger's commits under load stalled
  // every request for 6–13 ms every few seconds; 128 pages cost ~2 ms each, the same work in total.
  database.exec(`PRAGMA wal_autocheckpoint = ${walCheckpointPages};`);
  const from = migrate(database, progress);
  return { database, from, to: migrations.length };
}

/**
 * The store holds key hashes, budgets and the usage ledger: owner-only. A directory modelgate
 * creates is 0700 and a new database file 0600 (created empty before SQLite opens it, which is a
 * valid empty database); SQLite gives its `-wal` and `-shm` files the database file's mode. An
 * existing file keeps the mode its owner gave it.
 */
export function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Returns the version the store was at. Each migration takes the write lock before it reads the
 * version (BEGIN IMMEDIATE), so processes opening one file at once apply each migration once:
 * the others wait, then find it applied.
 */
function migrate(database: Database, progress: BackfillProgress | undefined): number {
  const version = (): number =>
    (database.prepare('PRAGMA user_version').get() as { user_version: number } | undefined)?.user_version ??
    0;
  const current = version();
  for (let next = current; next < migrations.length;) {
    database.exec('BEGIN IMMEDIATE');
    try {
      next = version();
      if (next < migrations.length) {
        const migration = migrations[next] ?? '';
        if (typeof migration === 'string') database.exec(migration);
        else migration(database, progress);
        database.exec(`PRAGMA user_version = ${++next}`);
      }
      database.exec('COMMIT');
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
  }
  return current;
}
