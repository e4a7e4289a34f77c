/**
 * `/dashboard…`: the operator's web console, served by the gateway itself. Its endpoints
 * (`dashboard-endpoints.ts`) are rows of the gateway's route table; `serve` answers one.
 *
 * A session cookie (HttpOnly, SameSite=Strict, Secure over TLS) is set on sign-in; every change
 * (anything but GET) also needs the session's CSRF token in `x-csrf-token`, or it is a 403.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminError, adminErrorBody } from '../admin/admin-error.ts';
import type { AdminDependencies } from '../admin/admin-request.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import type { Logger } from '../log/logger.ts';
import type { DashboardCall, DashboardContext, DashboardEndpoint } from './dashboard-endpoint.ts';
import { crossSite, readCookie, cookieName, redirect, sendJson } from './http.ts';
import { LiveTail, type WatchedLedger } from './live-tail.ts';
import { csrfMatches, DashboardSessions, type Session } from './sessions.ts';

export interface Dashboard {
  /** Answers a request the route table matched to `endpoint` (its parameters as written). */
  serve(
    endpoint: DashboardEndpoint,
    request: IncomingMessage,
    response: ServerResponse,
    params: DashboardCall['params'],
    search: URLSearchParams,
  ): Promise<void>;
  close(): void;
}

export function createDashboard(
  admin: AdminDependencies,
  store: DashboardStore,
  ledger: WatchedLedger,
  logger: Logger,
): Dashboard {
  const sessions = new DashboardSessions(store, admin.clock, (id) => admin.adminKey.bind(id));
  const tail = new LiveTail(ledger);
  const context: DashboardContext = { admin, store, sessions, tail };
  return {
    async serve(endpoint, request, response, params, search) {
      try {
        const call: DashboardCall = { request, response, params, search, session: undefined };
        if (endpoint.signedIn) {
          call.session = await signedIn(call, context);
          if (call.session === undefined) return;
        }
        await endpoint.answer(call, context);
      } catch (error) {
        if (error instanceof AdminError) {
          if (!response.headersSent) sendJson(response, error.status, adminErrorBody(error));
          return;
        }
        // PostgreSQL out of reach: the dashboard waits for it as the admin API does (a 503, not a 500).
        if (error instanceof StoreUnavailableError && !response.headersSent) {
          const unavailable = new AdminError(503, 'store_unavailable', `${error.message}; retry shortly`);
          sendJson(response, 503, adminErrorBody(unavailable), { 'retry-after': '1' });
          return;
        }
        logger.error('dashboard request failed', { cause: error instanceof Error ? error.name : 'unknown' });
        if (!response.headersSent)
          sendJson(response, 500, adminErrorBody(new AdminError(500, 'server_error', 'internal error')));
        else response.end();
      }
    },
    close: () => tail.close(),
  };
}

/**
 * The request's signed-in session; without one, an API call or a change is a 401 and a page is
 * sent to the sign-in page (undefined: answered). A change also needs the session's CSRF token.
 */
async function signedIn(
  { request, response }: DashboardCall,
  context: DashboardContext,
): Promise<DashboardCall['session']> {
  const method = request.method ?? 'GET';
  const id = readCookie(request, cookieName);
  const session = await context.sessions.find(id);
  if (session === undefined || id === undefined) {
    const api = (request.url ?? '').startsWith('/dashboard/api/');
    if (api || method !== 'GET') throw new AdminError(401, 'not_signed_in', 'Sign in to the dashboard first');
    redirect(response, '/dashboard/login');
    return undefined;
  }
  if (method !== 'GET' && method !== 'HEAD') checkChange(request, session);
  return { id, session };
}

/** Changes need the session's CSRF token and a same-origin browser request. */
function checkChange(request: IncomingMessage, session: Session): void {
  const token = request.headers['x-csrf-token'];
  if (crossSite(request) || !csrfMatches(session, typeof token === 'string' ? token : undefined))
    throw new AdminError(403, 'csrf', 'Missing or wrong CSRF token');
}
