/**
 * The store behind keys, the usage ledger, usage reports, stored Responses API answers and the
 * dashboard's data: the embedded file (node:sqlite, the default: nothing to run) or PostgreSQL when
 * MODELGATE_DATABASE_URL is set (loaded only then, `pg` included). Everything above this file sees
 * only the interfaces; nothing on a request's path waits for either (keys are read from a
 * `KeySource`, ledger rows are appended in memory).
 */
import type { Config } from '../config/config.ts';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.ts';
import type { Logger } from '../log/logger.ts';
import { UsageLedger, type Ledger } from '../usage/ledger.ts';
import { SqliteUsageReports } from './sqlite/sqlite-usage-reports.ts';
import { embeddedLedgerTarget, SqliteLedgerWriter } from './sqlite/sqlite-ledger-writer.ts';
import { SqliteDashboardStore } from './sqlite/sqlite-dashboard-store.ts';
import { openDatabase, openMigrated } from './sqlite/database.ts';
import { SqliteResponseStore } from './sqlite/sqlite-response-store.ts';
import type { MigrationReport, Stores } from './stores-contract.ts';
import type { BackfillProgress } from './rollup-backfill.ts';
import { ThreadedLedger } from '../usage/ledger-thread.ts';

export type { MigrationReport, Stores } from './stores-contract.ts';

export type StoreConfig = Pick<Config, 'databasePath' | 'databaseUrl' | 'outboxPath'>;

export async function openStores(config: StoreConfig, logger?: Logger): Promise<Stores> {
  if (config.databaseUrl !== undefined)
    return (await import('./postgres/postgres-stores.ts')).openPostgresStores(
      config.databaseUrl,
      config.outboxPath,
      logger,
    );
  return embeddedStores(config.databasePath, loggedProgress(logger));
}

/** A start's backfill (a ledger from before the rollups) says how far it got in the log. */
export function loggedProgress(logger: Logger | undefined): BackfillProgress | undefined {
  if (logger === undefined) return undefined;
  return (done, total) => {
    logger.info('rolling up the usage ledger for the dashboard', { done, total });
  };
}

export function embeddedStores(path: string, progress?: BackfillProgress): Stores {
  const database = openDatabase(path, progress);
  const keys = new SqliteKeyStore(database);
  let ledger: Ledger | undefined;
  return {
    kind: 'embedded',
    location: path,
    keys,
    keySource: keys,
    usage: new SqliteUsageReports(database),
    dashboard: new SqliteDashboardStore(database),
    responses: (retentionMs) => new SqliteResponseStore(database, retentionMs),
    ledger(options) {
      // A file: written by the ledger's own thread with its own connection. An in-memory database
      // is this connection's alone: written here, between requests, as before.
      ledger =
        path === ':memory:'
          ? inProcessLedger(new UsageLedger(new SqliteLedgerWriter(database), options))
          : new ThreadedLedger(embeddedLedgerTarget(path), () => new SqliteLedgerWriter(database), options);
      return ledger;
    },
    start: () => undefined,
    ping: async () => {
      database.prepare('SELECT 1').get();
      return Promise.resolve();
    },
    async close() {
      await ledger?.close();
      database.close();
    },
  };
}

/** The ledger written on this thread, between requests (`UsageLedger`). */
function inProcessLedger(usageLedger: UsageLedger): Ledger {
  return {
    append: (row) => {
      usageLedger.append(row);
    },
    get pending() {
      return usageLedger.pending;
    },
    flush: () => {
      usageLedger.flush();
    },
    watch: (watcher) => usageLedger.watch(watcher),
    close: async () => {
      usageLedger.close();
      return Promise.resolve();
    },
  };
}

/** Applies the store's migrations (opening a store does too) and says what changed. */
export async function migrateStore(
  config: StoreConfig,
  logger?: Logger,
  progress: BackfillProgress | undefined = loggedProgress(logger),
): Promise<MigrationReport> {
  if (config.databaseUrl !== undefined)
    return (await import('./postgres/postgres-stores.ts')).migrateOnly(config.databaseUrl, logger, progress);
  const { database, from, to } = openMigrated(config.databasePath, progress);
  database.close();
  return { kind: 'embedded', location: config.databasePath, from, to, latest: to };
}
