/**
 * What the rest of modelgate sees of the store, whichever one is open (stores.ts opens it; the
 * embedded file and PostgreSQL each implement it). Types only: the PostgreSQL side, loaded on
 * demand by stores.ts, imports them from here, not from the file that loads it.
 */
import type { KeySource, KeyStore } from '../keys/key-store.ts';
import type { Ledger, LedgerOptions } from '../usage/ledger.ts';
import type { UsageReports } from '../usage/report.ts';
import type { DashboardStore } from './dashboard-store.ts';
import type { ResponseStore } from './response-store.ts';

export interface Stores {
  readonly kind: 'embedded' | 'postgres';
  /** The file, or the server's URL without its password: what messages may show. */
  readonly location: string;
  readonly keys: KeyStore;
  /** The active keys for the gateway's cache (synchronous; see `KeySource`). */
  readonly keySource: KeySource;
  readonly usage: UsageReports;
  /** The dashboard's rollups, ledger pages and sessions. */
  readonly dashboard: DashboardStore;
  responses(retentionMs: number): ResponseStore;
  /** The gateway's ledger (only a serving process asks for one). */
  ledger(options: LedgerOptions): Ledger;
  /** Resolves when the store answers a trivial query now, rejects when it cannot (`/readyz`). */
  ping(): Promise<void>;
  /** Starts the store's background work (PostgreSQL: the key copy's refresh). */
  start(): void;
  close(): Promise<void>;
}

/** What `modelgate migrate` reports. */
export interface MigrationReport {
  kind: Stores['kind'];
  location: string;
  from: number;
  to: number;
  latest: number;
}
