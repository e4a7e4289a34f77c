/**
 * The store behind keys, the usage ledger, usage reports and stored Responses API answers: the
 * embedded file (node:sqlite, the default: nothing to run) or PostgreSQL when
 * MODELGATE_DATABASE_URL is set (loaded only then, `pg` included). Everything above this file sees
 * only the interfaces; nothing on a request's path waits for either (keys are read from a
 * `KeySource`, ledger rows are appended in memory).
 */
import type { Config } from '../config/config.ts';
import { SqliteKeyStore } from '../keys/sqlite-key-store.ts';
import type { KeySource, KeyStore } from '../keys/key-store.ts';
import type { Logger } from '../log/logger.ts';
import { UsageLedger, type Ledger, type LedgerOptions } from '../usage/ledger.ts';
import { SqliteUsageReports, type UsageReports } from '../usage/report.ts';
import { SqliteLedgerWriter } from '../usage/sqlite-ledger-writer.ts';
import { openDatabase, openMigrated, type Database } from './database.ts';
import { SqliteResponseStore, type ResponseStore } from './response-store.ts';

export interface Stores {
  readonly kind: 'embedded' | 'postgres';
  /** The file, or the server's URL without its password: what messages may show. */
  readonly location: string;
  readonly keys: KeyStore;
  /** The active keys for the gateway's cache (synchronous; see `KeySource`). */
  readonly keySource: KeySource;
  readonly usage: UsageReports;
  /** The embedded store's database (the dashboard's rollups and sessions); undefined with PostgreSQL. */
  readonly database: Database | undefined;
  responses(retentionMs: number): ResponseStore;
  /** The gateway's ledger (only a serving process asks for one). */
  ledger(options: LedgerOptions): Ledger;
  /** Starts the store's background work (PostgreSQL: the key copy's refresh). */
  start(): void;
  close(): Promise<void>;
}

export type StoreConfig = Pick<Config, 'databasePath' | 'databaseUrl' | 'outboxPath'>;

export async function openStores(config: StoreConfig, logger?: Logger): Promise<Stores> {
  if (config.databaseUrl !== undefined)
    return (await import('./postgres/postgres-stores.ts')).openPostgresStores(
      config.databaseUrl,
      config.outboxPath,
      logger,
    );
  return embeddedStores(config.databasePath);
}

export function embeddedStores(path: string): Stores {
  const database = openDatabase(path);
  const keys = new SqliteKeyStore(database);
  let ledger: UsageLedger | undefined;
  return {
    kind: 'embedded',
    location: path,
    keys,
    keySource: keys,
    usage: new SqliteUsageReports(database),
    database,
    responses: (retentionMs) => new SqliteResponseStore(database, retentionMs),
    ledger(options) {
      const usageLedger = new UsageLedger(new SqliteLedgerWriter(database), options);
      ledger = usageLedger;
      return {
        append: (row) => {
          usageLedger.append(row);
        },
        get pending() {
          return usageLedger.pending;
        },
        watch: (watcher) => usageLedger.watch(watcher),
        close: async () => {
          usageLedger.close();
          return Promise.resolve();
        },
      };
    },
    start: () => undefined,
    async close() {
      ledger?.close();
      database.close();
      return Promise.resolve();
    },
  };
}

/** What `modelgate migrate` reports. */
export interface MigrationReport {
  kind: Stores['kind'];
  location: string;
  from: number;
  to: number;
  latest: number;
}

/** Applies the store's migrations (opening a store does too) and says what changed. */
export async function migrateStore(config: StoreConfig, logger?: Logger): Promise<MigrationReport> {
  if (config.databaseUrl !== undefined)
    return (await import('./postgres/postgres-stores.ts')).migrateOnly(config.databaseUrl, logger);
  const { database, from, to } = openMigrated(config.databasePath);
  database.close();
  return { kind: 'embedded', location: config.databasePath, from, to, latest: to };
}
