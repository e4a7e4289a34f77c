/** `/dashboard/login` (the sign-in form and its post) and `/dashboard/logout`. */
import { AdminError } from '../admin/admin-error.ts';
import { readBody } from '../http/read-body.ts';
import type { DashboardCall, DashboardContext } from './dashboard-endpoint.ts';
import { crossSite, redirect, send, sendJson, sessionCookie } from './http.ts';
import { loginPage } from './pages.ts';
import { sessionLifetimeMs } from './sessions.ts';

export async function login({ request, response }: DashboardCall, context: DashboardContext): Promise<void> {
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

export async function logout(
  { request, response, session }: DashboardCall,
  context: DashboardContext,
): Promise<void> {
  if (request.method !== 'POST') throw new AdminError(405, 'method_not_allowed', 'Use POST');
  if (session !== undefined) await context.sessions.delete(session.id);
  sendJson(response, 200, { signed_out: true }, { 'set-cookie': sessionCookie(request, '', 0) });
}
