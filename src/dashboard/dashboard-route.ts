/**
 * `/dashboard…`: the operator's web console, served by the gateway itself.
 *
 *   GET  /dashboard                 the app (signed in) or a redirect to the sign-in page
 *   GET  /dashboard/login           sign-in form; POST it with the admin key (never a client key)
 *   POST /dashboard/logout          sign out (CSRF token required)
 *   GET  /dashboard/assets/…        the app's script and styles, uPlot (all from this origin)
 *   GET  /dashboard/api/overview|usage|models|requests|tail   figures (rollups, ledger, SSE)
 *   *    /dashboard/api/keys[/id]   the admin API's key routes, through the same logic
 *
 * A session cookie (HttpOnly, SameSite=Strict, Secure over TLS) is set on sign-in; every change
 * (anything but GET) also needs the session's CSRF token in `x-csrf-token`, or it is a 403.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminError, adminErrorBody, routeAdmin, type AdminDependencies } from '../admin/admin-api.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { GatewayError } from '../ir/index.ts';
import type { Logger } from '../log/logger.ts';
import { isJsonContentType, parseJsonBody, readBody } from '../http/read-body.ts';
import { serveAsset } from './assets.ts';
import { appPage, loginPage } from './pages.ts';
import {
  crossSite,
  readCookie,
  cookieName,
  redirect,
  send,
  sendJson,
  sessionCookie,
  securityHeaders,
} from './http.ts';
import { LiveTail, type WatchedLedger } from './live-tail.ts';
import { budgetBurnDown, isUsageDimension, modelStats, overview, usageBreakdown } from './queries.ts';
import { parseRange } from './ranges.ts';
import { keyListing } from './key-listing.ts';
import { parseRequestFilter, requestsPage } from './requests-page.ts';
import { csrfMatches, DashboardSessions, sessionLifetimeMs, type Session } from './sessions.ts';

export interface Dashboard {
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    pathname: string,
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
    async handle(request, response, pathname, search) {
      try {
        await route(request, response, pathname, search, context);
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

interface DashboardContext {
  admin: AdminDependencies;
  /** Either store: rollups, the ledger, sessions. */
  store: DashboardStore;
  sessions: DashboardSessions;
  tail: LiveTail;
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
  search: URLSearchParams,
  context: DashboardContext,
): Promise<void> {
  const method = request.method ?? 'GET';
  if (pathname.startsWith('/dashboard/assets/')) {
    if (method !== 'GET' && method !== 'HEAD') throw new AdminError(405, 'method_not_allowed', 'Use GET');
    serveAsset(request, response, pathname.slice('/dashboard/assets/'.length));
    return;
  }
  if (pathname === '/dashboard/login') {
    await login(request, response, context);
    return;
  }
  const sessionId = readCookie(request, cookieName);
  const session = await context.sessions.find(sessionId);
  const api = pathname.startsWith('/dashboard/api/');
  if (session === undefined || sessionId === undefined) {
    if (api || method !== 'GET') throw new AdminError(401, 'not_signed_in', 'Sign in to the dashboard first');
    redirect(response, '/dashboard/login');
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') checkChange(request, session);
  if (pathname === '/dashboard/logout') {
    if (method !== 'POST') throw new AdminError(405, 'method_not_allowed', 'Use POST');
    await context.sessions.delete(sessionId);
    sendJson(response, 200, { signed_out: true }, { 'set-cookie': sessionCookie(request, '', 0) });
    return;
  }
  if (pathname === '/dashboard' || pathname === '/dashboard/') {
    if (method !== 'GET') throw new AdminError(405, 'method_not_allowed', 'Use GET');
    send(response, 200, 'text/html; charset=utf-8', appPage(session.csrf));
    return;
  }
  if (api) {
    await apiRoute(request, response, pathname.slice('/dashboard/api/'.length), search, context);
    return;
  }
  throw new AdminError(404, 'not_found', 'No such dashboard page');
}

/** Changes need the session's CSRF token and a same-origin browser request. */
function checkChange(request: IncomingMessage, session: Session): void {
  const token = request.headers['x-csrf-token'];
  if (crossSite(request) || !csrfMatches(session, typeof token === 'string' ? token : undefined))
    throw new AdminError(403, 'csrf', 'Missing or wrong CSRF token');
}

async function login(
  request: IncomingMessage,
  response: ServerResponse,
  context: DashboardContext,
): Promise<void> {
  const { adminKey } = context.admin;
  if (request.method === 'GET') {
    send(
      response,
      adminKey.enabled ? 200 : 503,
      'text/html; charset=utf-8',
      loginPage(loginNotice(adminKey.enabled)),
    );
    return;
  }
  if (request.method !== 'POST') throw new AdminError(405, 'method_not_allowed', 'Use GET or POST');
  if (crossSite(request)) throw new AdminError(403, 'csrf', 'Cross-site sign-in refused');
  if (!adminKey.enabled) {
    send(response, 503, 'text/html; charset=utf-8', loginPage(loginNotice(false)));
    return;
  }
  const address = request.socket.remoteAddress ?? '';
  // Decided and counted at once, before the form is read: concurrent tries cannot race the check.
  const lockedFor = context.admin.throttle.reserve(address);
  if (lockedFor > 0) {
    const seconds = Math.ceil(lockedFor / 1000);
    send(
      response,
      429,
      'text/html; charset=utf-8',
      loginPage(`Too many failed sign-ins: try again in ${seconds} s.`),
      { 'retry-after': String(seconds) },
    );
    return;
  }
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('application/x-www-form-urlencoded'))
    throw new AdminError(415, 'unsupported_media_type', 'Send the sign-in form');
  const form = new URLSearchParams(await readBody(request, 4_096));
  // Only the admin key signs in: a client key, however valid on the model routes, is refused.
  if (!adminKey.verify(form.get('key') ?? undefined)) {
    send(response, 401, 'text/html; charset=utf-8', loginPage('That is not the admin key.'));
    return;
  }
  context.admin.throttle.succeeded(address);
  const { id } = await context.sessions.create();
  redirect(response, '/dashboard', { 'set-cookie': sessionCookie(request, id, sessionLifetimeMs / 1000) });
}

function loginNotice(enabled: boolean): string | undefined {
  return enabled ? undefined : 'The dashboard is closed: set MODELGATE_ADMIN_KEY to open it.';
}

async function apiRoute(
  request: IncomingMessage,
  response: ServerResponse,
  resource: string,
  search: URLSearchParams,
  context: DashboardContext,
): Promise<void> {
  const { admin } = context;
  const method = request.method ?? 'GET';
  if (resource === 'keys' || resource.startsWith('keys/')) {
    const answer = await routeAdmin(
      {
        method,
        pathname: `/admin/${resource}`,
        search,
        credential: undefined,
        body: () => jsonBody(request),
      },
      admin,
    );
    const listed = method === 'GET' && resource === 'keys' && answer.status === 200;
    sendJson(response, answer.status, listed ? await keyListing(answer.body, context) : answer.body);
    return;
  }
  if (method !== 'GET') throw new AdminError(405, 'method_not_allowed', 'Use GET');
  const now = admin.clock();
  if (resource === 'tail') {
    if (!context.tail.open(response, securityHeaders))
      throw new AdminError(503, 'too_many_viewers', 'Too many live-tail viewers');
    return;
  }
  if (resource === 'requests') {
    const names = await admin.store.names();
    const filter = parseRequestFilter(search, (text) => keyIdOf(names, text));
    if (typeof filter === 'string') throw new AdminError(400, 'invalid_request', filter);
    sendJson(response, 200, await requestsPage(context.store, filter, names));
    return;
  }
  const range = parseRange(search.get('range'), now);
  if (range === undefined) throw new AdminError(400, 'invalid_request', 'range is one of 1h, 24h, 7d, 30d');
  if (resource === 'overview') {
    sendJson(response, 200, await overview(context.store, range, now));
    return;
  }
  if (resource === 'usage') {
    const by = search.get('by') ?? 'key';
    if (!isUsageDimension(by))
      throw new AdminError(400, 'invalid_request', 'by is one of key, model, family');
    const budgeted = (await admin.store.list(false))
      .flatMap((record) =>
        record.budgetUsd === undefined
          ? []
          : [{ id: record.id, name: record.name, budgetUsd: record.budgetUsd, spentUsd: record.spentUsd }],
      )
      .slice(0, 20);
    sendJson(response, 200, {
      ...(await usageBreakdown(context.store, range, by, await admin.store.names())),
      budgets: await budgetBurnDown(context.store, range, budgeted),
    });
    return;
  }
  if (resource === 'models') {
    sendJson(response, 200, {
      range: range.name,
      health: admin.health?.() ?? null,
      data: await modelStats(context.store, range),
    });
    return;
  }
  throw new AdminError(404, 'not_found', 'No such dashboard API');
}

function keyIdOf(names: ReadonlyMap<string, string>, text: string): string | undefined {
  if (names.has(text)) return text;
  for (const [id, name] of names) if (name === text) return id;
  return undefined;
}

async function jsonBody(request: IncomingMessage): Promise<unknown> {
  if (!isJsonContentType(request.headers['content-type']))
    throw new AdminError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  try {
    return parseJsonBody(await readBody(request, 65_536));
  } catch (error) {
    if (error instanceof GatewayError) throw new AdminError(error.status, 'invalid_request', error.message);
    throw error;
  }
}
