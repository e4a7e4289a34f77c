/**
 * The PostgreSQL schema, versioned: each entry is one migration, applied once and in order; the
 * ones a database lacks are applied in one transaction (all or none) and recorded in
 * `modelgate_migrations`. They run at every start and with
 * `modelgate migrate`; an advisory lock makes instances starting at once apply each exactly once
 * (the others wait, then find nothing to do). Never edit an entry that shipped: add one.
 *
 * The tables mirror the embedded store's (times in Unix milliseconds, costs in USD as double
 * precision, models and stored answers as JSON text so they read back byte for byte). A ledger
 * row's identity is its attempt: (request id, attempt number), so a batch shipped twice inserts
 * nothing twice.
 */
import type { PgConnection } from './connection.ts';
import { backfillPgRollups, type BackfillProgress } from '../rollup-backfill.ts';

/** A schema change: SQL, or SQL and then work (the rollups' backfill, which reports its progress). */
export type PgMigration =
  string | ((query: PgConnection['query'], progress: BackfillProgress | undefined) => Promise<void>);

export const postgresMigrations: readonly PgMigration[] = [
  `CREATE TABLE client_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     updated_at BIGINT,
     revoked_at BIGINT,
     models TEXT,
     budget_usd DOUBLE PRECISION,
     rpm INTEGER,
     tpm INTEGER,
     expires_at BIGINT
   );
   CREATE UNIQUE INDEX client_keys_active_name ON client_keys (name) WHERE revoked_at IS NULL;
   CREATE TABLE key_spend (
     key_id TEXT PRIMARY KEY,
     spent_usd DOUBLE PRECISION NOT NULL DEFAULT 0
   );
   CREATE TABLE store_generation (
     name TEXT PRIMARY KEY,
     value BIGINT NOT NULL
   );
   INSERT INTO store_generation (name, value) VALUES ('client_keys', 0);
   CREATE FUNCTION modelgate_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE store_generation SET value = value + 1 WHERE name = 'client_keys';
     RETURN NULL;
   END $$;
   CREATE TRIGGER client_keys_changed AFTER INSERT OR UPDATE OR DELETE ON client_keys
     FOR EACH STATEMENT EXECUTE FUNCTION modelgate_key_changed();
   CREATE TABLE usage_ledger (
     request_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     final BOOLEAN NOT NULL,
     created_at BIGINT NOT NULL,
     key_id TEXT NOT NULL,
     surface TEXT NOT NULL,
     model TEXT NOT NULL,
     family TEXT NOT NULL,
     upstream_model TEXT,
     deployment TEXT,
     stream BOOLEAN NOT NULL,
     status INTEGER NOT NULL,
     upstream_status INTEGER,
     outcome TEXT NOT NULL,
     error TEXT,
     prompt_tokens BIGINT NOT NULL,
     cached_tokens BIGINT NOT NULL,
     cache_write_tokens BIGINT NOT NULL,
     output_tokens BIGINT NOT NULL,
     cost_usd DOUBLE PRECISION NOT NULL,
     usage_estimated BOOLEAN NOT NULL,
     latency_ms DOUBLE PRECISION,
     ttft_ms DOUBLE PRECISION,
     overhead_ms DOUBLE PRECISION,
     PRIMARY KEY (request_id, attempt)
   );
   CREATE INDEX usage_ledger_time ON usage_ledger (created_at);
   CREATE INDEX usage_ledger_key_time ON usage_ledger (key_id, created_at);
   CREATE TABLE responses (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     input_items TEXT NOT NULL,
     response TEXT NOT NULL
   );
   CREATE INDEX responses_expiry ON responses (expires_at);`,
  // Reasoning tokens (the metrics count them too) and the request's W3C trace id.
  `ALTER TABLE usage_ledger ADD COLUMN reasoning_tokens BIGINT NOT NULL DEFAULT 0;
   ALTER TABLE usage_ledger ADD COLUMN trace_id TEXT;`,
  // The dashboard (as in the embedded store): a row id for the requests page's keyset cursor
  // (time, id), its indexes ending with it; per-minute and per-hour rollups, one dimension at a
  // time, kept by the ledger shipper's transaction; latency histograms a row per log bin; sessions
  // (a digest of the session id only). Rows already shipped are rolled up here.
  async (query, progress) => {
    await query(`ALTER TABLE usage_ledger ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;
   CREATE INDEX usage_ledger_time_id ON usage_ledger (created_at, id);
   CREATE INDEX usage_ledger_key_time_id ON usage_ledger (key_id, created_at, id);
   DROP INDEX usage_ledger_time;
   DROP INDEX usage_ledger_key_time;
   CREATE TABLE usage_rollup (
     period INTEGER NOT NULL,
     dimension TEXT NOT NULL,
     bucket BIGINT NOT NULL,
     value TEXT NOT NULL,
     requests BIGINT NOT NULL,
     errors BIGINT NOT NULL,
     attempts BIGINT NOT NULL,
     retries BIGINT NOT NULL,
     fallbacks BIGINT NOT NULL,
     prompt_tokens BIGINT NOT NULL,
     cached_tokens BIGINT NOT NULL,
     cache_write_tokens BIGINT NOT NULL,
     output_tokens BIGINT NOT NULL,
     cost_usd DOUBLE PRECISION NOT NULL,
     overhead_ms DOUBLE PRECISION NOT NULL,
     overhead_count BIGINT NOT NULL,
     PRIMARY KEY (period, dimension, bucket, value)
   );
   CREATE TABLE latency_rollup (
     period INTEGER NOT NULL,
     model TEXT NOT NULL,
     bucket BIGINT NOT NULL,
     metric TEXT NOT NULL,
     bin SMALLINT NOT NULL,
     count BIGINT NOT NULL,
     PRIMARY KEY (period, model, bucket, metric, bin)
   );
   CREATE TABLE dashboard_sessions (
     id_hash TEXT PRIMARY KEY,
     csrf TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );`);
    await backfillPgRollups(query, progress);
  },
  // Periodic budgets: so much per UTC day, week or month (keys/budget-period.ts), beside the lifetime one.
  `ALTER TABLE client_keys ADD COLUMN budget_period TEXT;
   ALTER TABLE client_keys ADD COLUMN period_budget_usd DOUBLE PRECISION;`,
  // Stored responses by reference (see the embedded store's migration of the same name).
  `ALTER TABLE responses ADD COLUMN previous_id TEXT`,
];

/** Any fixed number: the lock only serialises modelgate's own migrations. */
const migrationLock = 0x6d67_6174;

export interface MigrationStatus {
  /** The version before this run. */
  from: number;
  /** The version now. */
  to: number;
  latest: number;
}

/** The schema version recorded in the database (0: none yet). */
export async function schemaVersion(connection: PgConnection): Promise<number> {
  const [row] = await connection.query<{ version: number | null }>(
    `SELECT CASE WHEN to_regclass('modelgate_migrations') IS NULL THEN 0
       ELSE (SELECT coalesce(max(version), 0) FROM modelgate_migrations) END AS version`,
  );
  return row?.version ?? 0;
}

/** Applies every migration the database lacks; refuses a database newer than this build. */
export async function migratePostgres(
  connection: PgConnection,
  migrations: readonly PgMigration[] = postgresMigrations,
  progress?: BackfillProgress,
): Promise<MigrationStatus> {
  return connection.transaction(async (query) => {
    // Held until this transaction ends: a second instance waits here, then sees the new version.
    await query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
    await query(
      `CREATE TABLE IF NOT EXISTS modelgate_migrations (
         version INTEGER PRIMARY KEY,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const [row] = await query<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM modelgate_migrations',
    );
    const from = row?.version ?? 0;
    if (from > migrations.length)
      throw new Error(
        `the database's schema is version ${from}, newer than this modelgate knows (${migrations.length}): upgrade modelgate`,
      );
    for (let version = from; version < migrations.length; version++) {
      const migration = migrations[version] ?? '';
      if (typeof migration === 'string') await query(migration);
      else await migration(query, progress);
      await query('INSERT INTO modelgate_migrations (version) VALUES ($1)', [version + 1]);
    }
    return { from, to: migrations.length, latest: migrations.length };
  });
}
