/** Small answer helpers for the dashboard: security headers on everything, cookies, redirects. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Everything comes from the gateway itself: no CDN, no inline script, no framing. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export const cookieName = 'modelgate_session';

export function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string | string[]> = {},
): void {
  response.writeHead(status, {
    ...securityHeaders,
    'cache-control': 'no-store',
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers = {}): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function redirect(response: ServerResponse, location: string, headers = {}): void {
  response.writeHead(303, { ...securityHeaders, 'cache-control': 'no-store', location, ...headers });
  response.end();
}

/** The request reached us over TLS, directly or (as the proxy says) before a TLS-ending proxy. */
export function overTls(request: IncomingMessage): boolean {
  if ((request.socket as Partial<TLSSocket>).encrypted === true) return true;
  const forwarded = request.headers['x-forwarded-proto'];
  return typeof forwarded === 'string' && forwarded.split(',')[0]?.trim().toLowerCase() === 'https';
}

export function sessionCookie(request: IncomingMessage, id: string, maxAgeSeconds: number): string {
  const secure = overTls(request) ? '; Secure' : '';
  return `${cookieName}=${id}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function readCookie(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator !== -1 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * A browser's cross-site request is refused before anything else (the sign-in form included, which
 * has no session to bind a token to yet): `Sec-Fetch-Site` when sent, else `Origin` against `Host`.
 */
export function crossSite(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}
