/**
 * Dashboard sessions, kept in the store so every worker process, every instance on one
 * PostgreSQL, and a restart see the same sign-ins: the store holds only a digest of the session
 * id bound to the admin key that signed in (`AdminKey.bind`, an HMAC), so reading the database
 * does not let anyone sign in, and rotating the admin key ends every session made with the old one. Each session has its CSRF
 * token (random, compared in constant time) and a fixed expiry; signing out deletes it. Expired sessions are removed as new ones are made.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { DashboardStore } from '../store/dashboard-store.ts';

/** How long a sign-in lasts (the cookie's Max-Age too). */
export const sessionLifetimeMs = 8 * 3_600_000;

export interface Session {
  csrf: string;
  expiresAt: number;
}

export class DashboardSessions {
  readonly #store: DashboardStore;
  readonly #clock: () => number;
  /** The stored digest of a session id, bound to the admin key. */
  readonly #digest: (id: string) => string;

  constructor(store: DashboardStore, clock: () => number, digest: (id: string) => string) {
    this.#store = store;
    this.#clock = clock;
    this.#digest = digest;
  }

  /** A new session: its id (for the cookie only) and its CSRF token. */
  async create(): Promise<{ id: string; session: Session }> {
    const now = this.#clock();
    await this.#store.run('DELETE FROM dashboard_sessions WHERE expires_at <= ?', [now]);
    const id = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(24).toString('base64url'), expiresAt: now + sessionLifetimeMs };
    await this.#store.run('INSERT INTO dashboard_sessions VALUES (?, ?, ?)', [
      this.#digest(id),
      session.csrf,
      session.expiresAt,
    ]);
    return { id, session };
  }

  async find(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || id.length === 0 || id.length > 100) return undefined;
    const [row] = await this.#store.all<{ csrf: string; expires_at: number }>(
      'SELECT csrf, expires_at FROM dashboard_sessions WHERE id_hash = ?',
      [this.#digest(id)],
    );
    if (row === undefined || row.expires_at <= this.#clock()) return undefined;
    return { csrf: row.csrf, expiresAt: row.expires_at };
  }

  async delete(id: string): Promise<void> {
    await this.#store.run('DELETE FROM dashboard_sessions WHERE id_hash = ?', [this.#digest(id)]);
  }
}

/** True when `presented` is the session's CSRF token. */
export function csrfMatches(session: Session, presented: string | undefined): boolean {
  if (presented === undefined || presented.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(presented), Buffer.from(session.csrf));
}
