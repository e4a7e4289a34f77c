/**
 * Dashboard sessions, kept in the store so every worker process (and a restart) sees the same
 * sign-ins: the store holds only a SHA-256 digest of the session id, so reading the database does
 * not let anyone sign in. Each session has its CSRF token (random, compared in constant time) and
 * a fixed expiry; signing out deletes it. Expired sessions are removed as new ones are made.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StatementSync } from 'node:sqlite';
import type { Database } from '../store/database.ts';

/** How long a sign-in lasts (the cookie's Max-Age too). */
export const sessionLifetimeMs = 8 * 3_600_000;

export interface Session {
  csrf: string;
  expiresAt: number;
}

export class DashboardSessions {
  readonly #insert: StatementSync;
  readonly #find: StatementSync;
  readonly #delete: StatementSync;
  readonly #purge: StatementSync;
  readonly #clock: () => number;

  constructor(database: Database, clock: () => number) {
    this.#clock = clock;
    this.#insert = database.prepare('INSERT INTO dashboard_sessions VALUES (?, ?, ?)');
    this.#find = database.prepare('SELECT csrf, expires_at FROM dashboard_sessions WHERE id_hash = ?');
    this.#delete = database.prepare('DELETE FROM dashboard_sessions WHERE id_hash = ?');
    this.#purge = database.prepare('DELETE FROM dashboard_sessions WHERE expires_at <= ?');
  }

  /** A new session: its id (for the cookie only) and its CSRF token. */
  create(): { id: string; session: Session } {
    const now = this.#clock();
    this.#purge.run(now);
    const id = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(24).toString('base64url'), expiresAt: now + sessionLifetimeMs };
    this.#insert.run(digest(id), session.csrf, session.expiresAt);
    return { id, session };
  }

  find(id: string | undefined): Session | undefined {
    if (id === undefined || id.length === 0 || id.length > 100) return undefined;
    const row = this.#find.get(digest(id)) as { csrf: string; expires_at: number } | undefined;
    if (row === undefined || row.expires_at <= this.#clock()) return undefined;
    return { csrf: row.csrf, expiresAt: row.expires_at };
  }

  delete(id: string): void {
    this.#delete.run(digest(id));
  }
}

/** True when `presented` is the session's CSRF token. */
export function csrfMatches(session: Session, presented: string | undefined): boolean {
  if (presented === undefined || presented.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(presented), Buffer.from(session.csrf));
}

function digest(id: string): string {
  return hash('sha256', id, 'base64url');
}
