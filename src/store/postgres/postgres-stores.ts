/**
 * The PostgreSQL store (MODELGATE_DATABASE_URL), composed: the pool, the migrations (applied at
 * open), keys and their in-memory copy, usage reports, stored answers, the dashboard's data, and the
 * ledger — appended in memory, written in batches to the local outbox file, shipped to the server
 * from there (with the dashboard's rollups).
 */
import type { Logger } from '../../log/logger.ts';
import { UsageLedger, type Ledger, type LedgerOptions, type LedgerRow } from '../../usage/ledger.ts';
import { ThreadedLedger } from '../../usage/ledger-thread.ts';
import { StoreUnavailableError } from '../store-errors.ts';
import type { BackfillProgress } from '../rollup-backfill.ts';
import type { MigrationReport, Stores } from '../stores-contract.ts';
import { connectPostgres, type PgConnection } from './connection.ts';
import { LedgerOutbox, outboxLedgerTarget } from './ledger-outbox.ts';
import { LedgerShipper } from './ledger-shipper.ts';
import { migratePostgres, postgresMigrations, type MigrationStatus } from './migrations.ts';
import { PgKeyCopy } from './pg-key-copy.ts';
import { PgDashboardStore } from './pg-dashboard-store.ts';
import { PgKeyStore } from './pg-key-store.ts';
import { PgResponseStore } from './pg-response-store.ts';
import { PgUsageReports } from './pg-usage-reports.ts';

/** How long a start waits for an unreachable server before giving up with a clear message. */
const startTimeoutMs = 15_000;
/** How often the key copy asks whether a key changed (a change must apply within a second). */
const keyPollMs = 250;
/** At shutdown, how long the ledger's last rows may take to reach the server (else they wait in the outbox). */
const shipOnCloseMs = 10_000;

export async function openPostgresStores(url: string, outboxPath: string, logger?: Logger): Promise<Stores> {
  const connection = await connectPostgres(url, logger);
  try {
    await migrateWhenReachable(connection, logger);
    const keySource = new PgKeyCopy(connection, logger);
    await keySource.refresh();
    return postgresStores(connection, keySource, outboxPath, logger);
  } catch (error) {
    await connection.close();
    throw error;
  }
}

function postgresStores(
  connection: PgConnection,
  keySource: PgKeyCopy,
  outboxPath: string,
  logger: Logger | undefined,
): Stores {
  let closeLedger: (() => Promise<void>) | undefined;
  return {
    kind: 'postgres',
    location: connection.location,
    dashboard: new PgDashboardStore(connection),
    keys: new PgKeyStore(connection),
    keySource,
    usage: new PgUsageReports(connection),
    responses: (retentionMs) => new PgResponseStore(connection, retentionMs),
    ledger(options) {
      const ledger = outboxLedger(connection, outboxPath, options, logger);
      closeLedger = () => ledger.close();
      return ledger;
    },
    start() {
      keySource.start(keyPollMs);
    },
    async ping() {
      await connection.query('SELECT 1');
    },
    async close() {
      keySource.stop();
      await closeLedger?.();
      await connection.close();
    },
  };
}

/** The ledger with PostgreSQL: batches to the outbox file (at once, locally), shipped from there. */
function outboxLedger(
  connection: PgConnection,
  outboxPath: string,
  options: LedgerOptions,
  logger: Logger | undefined,
): Ledger {
  const outbox = new LedgerOutbox(outboxPath);
  const shipper = new LedgerShipper(outbox, connection, { logger });
  const toOutbox = {
    write(batch: readonly LedgerRow[]) {
      outbox.write(batch);
      shipper.wake();
    },
  };
  // A file: appended by the ledger's own thread with its own connection (the shipper reads it
  // here, woken by each commit). An in-memory outbox is this connection's alone: written here.
  const ledger =
    outboxPath === ':memory:'
      ? new UsageLedger(toOutbox, options)
      : new ThreadedLedger(outboxLedgerTarget(outboxPath), () => toOutbox, {
          ...options,
          onWritten: () => {
            shipper.wake();
          },
        });
  shipper.start();
  let closing: Promise<void> | undefined;
  return {
    append: (row) => {
      ledger.append(row);
    },
    get pending() {
      return ledger.pending;
    },
    // The live tail: this instance's rows, as they are appended (each instance tails its own).
    watch: (watcher) => ledger.watch(watcher),
    // To the outbox file: shipped by whichever process holds the lease, or at the next start.
    flush: () => {
      ledger.flush();
    },
    close: () =>
      (closing ??= (async () => {
        await ledger.close();
        const waiting = await shipper.drain(shipOnCloseMs);
        if (waiting > 0)
          logger?.warn('ledger rows not shipped at shutdown: they wait in the outbox for the next start', {
            rows: waiting,
            outbox: outbox.path,
          });
        outbox.close();
      })()),
  };
}

/** `modelgate migrate`: applies what the database lacks, and nothing else. */
export async function migrateOnly(
  url: string,
  logger?: Logger,
  progress?: BackfillProgress,
): Promise<MigrationReport> {
  const connection = await connectPostgres(url, logger);
  try {
    const status = await migrateWhenReachable(connection, logger, progress);
    return { kind: 'postgres', location: connection.location, ...status };
  } finally {
    await connection.close();
  }
}

/** Migrates, retrying while the server cannot be reached (it may be starting too), up to a deadline. */
async function migrateWhenReachable(
  connection: PgConnection,
  logger: Logger | undefined,
  progress: BackfillProgress | undefined = logger === undefined
    ? undefined
    : (done, total) => {
        logger.info('rolling up the usage ledger for the dashboard', { done, total });
      },
): Promise<MigrationStatus> {
  const deadline = Date.now() + startTimeoutMs;
  let warned = false;
  for (;;) {
    try {
      return await migratePostgres(connection, postgresMigrations, progress);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() >= deadline) throw error;
      if (!warned)
        logger?.warn('waiting for PostgreSQL', { store: connection.location, cause: error.message });
      warned = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
