/**
 * Every dashboard endpoint, each a row of the gateway's route table:
 *
 *   GET  /dashboard                 the app (signed in) or a redirect to the sign-in page
 *   GET  /dashboard/login           sign-in form; POST it with the admin key (never a client key)
 *   POST /dashboard/logout          sign out (CSRF token required)
 *   GET  /dashboard/assets/…        the app's script and styles, uPlot (all from this origin)
 *   GET  /dashboard/api/overview|usage|models|requests|tail   figures (rollups, ledger, SSE)
 *   *    /dashboard/api/keys[/id]   the admin API's key endpoints, through the same logic
 *
 * Any other path under `/dashboard/` is a 404 for a signed-in session.
 */
import type { IncomingMessage } from 'node:http';
import { adminEndpoints, answerAdmin, type AdminEndpoint } from '../admin/admin-api.ts';
import { AdminError } from '../admin/admin-error.ts';
import { GatewayError } from '../ir/index.ts';
import { isJsonContentType, parseJsonBody, readBody } from '../http/read-body.ts';
import { serveAsset } from './assets.ts';
import type { DashboardCall, DashboardEndpoint } from './dashboard-endpoint.ts';
import { figuresEndpoints } from './figures-api.ts';
import { send, sendJson } from './http.ts';
import { keyListing } from './key-listing.ts';
import { appPage } from './pages.ts';
import { login, logout } from './sign-in.ts';

/** The dashboard's paths start here; an endpoint under `/dashboard/api/` answers JSON, never a page. */
export const dashboardPrefix = '/dashboard';

const app: DashboardEndpoint['answer'] = ({ request, response, session }) => {
  if (request.method !== 'GET') throw new AdminError(405, 'method_not_allowed', 'Use GET');
  send(response, 200, 'text/html; charset=utf-8', appPage(session?.session.csrf ?? ''));
};

/** The admin API's key endpoint under `/dashboard/api/keys…`: the keys page lists static keys too. */
function keysEndpoint(endpoint: AdminEndpoint): DashboardEndpoint {
  return {
    methods: [endpoint.method],
    path: `${dashboardPrefix}/api${endpoint.path}`,
    signedIn: true,
    answer: async ({ request, response, params, search }, context) => {
      const method = request.method ?? 'GET';
      const url = request.url ?? '';
      const pathname = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
      const body = (): Promise<unknown> => jsonBody(request);
      const admin = { method, pathname, params, search, credential: undefined, body };
      const answer = await answerAdmin(admin, endpoint, context.admin);
      const listed = endpoint.method === 'GET' && endpoint.path === '/keys' && answer.status === 200;
      sendJson(response, answer.status, listed ? await keyListing(answer.body, context) : answer.body);
    },
  };
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

/** A path under `/dashboard/` no endpoint declares, for a signed-in session. */
function undeclared({ request, params }: DashboardCall): void {
  const rest = params['*'] ?? '';
  if (!rest.startsWith('api/')) throw new AdminError(404, 'not_found', 'No such dashboard page');
  if (request.method !== 'GET') throw new AdminError(405, 'method_not_allowed', 'Use GET');
  throw new AdminError(404, 'not_found', 'No such dashboard API');
}

export const dashboardEndpoints: readonly DashboardEndpoint[] = [
  { methods: 'any', path: dashboardPrefix, signedIn: true, answer: app },
  { methods: 'any', path: `${dashboardPrefix}/`, signedIn: true, answer: app },
  { methods: 'any', path: `${dashboardPrefix}/login`, signedIn: false, answer: login },
  { methods: 'any', path: `${dashboardPrefix}/logout`, signedIn: true, answer: logout },
  {
    methods: 'any',
    path: `${dashboardPrefix}/assets/*`,
    signedIn: false,
    answer: ({ request, response, params }) => {
      const method = request.method;
      if (method !== 'GET' && method !== 'HEAD') throw new AdminError(405, 'method_not_allowed', 'Use GET');
      serveAsset(request, response, params['*'] ?? '');
    },
  },
  ...figuresEndpoints,
  ...adminEndpoints.filter((endpoint) => endpoint.path.startsWith('/keys')).map(keysEndpoint),
  { methods: 'any', path: `${dashboardPrefix}/*`, signedIn: true, answer: undeclared },
];
