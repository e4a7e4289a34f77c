/** What a dashboard endpoint is given (the request, the dashboard's parts) and how it is declared. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminDependencies } from '../admin/admin-request.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import type { LiveTail } from './live-tail.ts';
import type { DashboardSessions, Session } from './sessions.ts';

export interface DashboardContext {
  admin: AdminDependencies;
  /** Either store: rollups, the ledger, sessions. */
  store: DashboardStore;
  sessions: DashboardSessions;
  tail: LiveTail;
}

/** One request at a dashboard endpoint. */
export interface DashboardCall {
  request: IncomingMessage;
  response: ServerResponse;
  /** The path's parameters as the route table matched them, as written (`*`: the rest). */
  params: Readonly<Record<string, string | undefined>>;
  search: URLSearchParams;
  /** The signed-in session (endpoints that need none get undefined). */
  session: { id: string; session: Session } | undefined;
}

/** Methods a row answers: named ones, or any (the endpoint answers a wrong one itself, 405). */
export type DashboardMethods = 'any' | readonly ('GET' | 'POST' | 'PATCH' | 'DELETE')[];

/** One dashboard endpoint: a row of the gateway's route table. */
export interface DashboardEndpoint {
  readonly methods: DashboardMethods;
  /** The route table's syntax (`:key` a parameter, a final `*` the rest of the path). */
  readonly path: string;
  /** Only for a signed-in session (else a 401, or the sign-in page for a page); changes need its CSRF token. */
  readonly signedIn: boolean;
  readonly answer: (call: DashboardCall, context: DashboardContext) => Promise<void> | void;
}
