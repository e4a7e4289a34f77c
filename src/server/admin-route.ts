/** `/admin/…`: the admin API's rows, behind the admin key, answering in its own error shape. */
import { adminEndpoints, adminPrefix, handleAdmin, type AdminEndpoint } from '../admin/admin-api.ts';
import { AdminError, adminErrorBody } from '../admin/admin-error.ts';
import { defaultSurface } from '../surfaces/registry.ts';
import { GatewayError } from '../ir/index.ts';
import { isJsonContentType, parseJsonBody, readBody } from '../http/read-body.ts';
import { expectsContinue } from './before-body.ts';
import type { ChatRouteState } from './chat-route.ts';
import type { Exchange } from './exchange.ts';
import type { Route, RouteRow } from './route-row.ts';

/**
 * One row per admin endpoint (its method and path), then `/admin` and `/admin/*` for every other
 * method and path: authenticated like the rest, then the admin API's 404.
 */
export function adminRows(): RouteRow[] {
  const rows: RouteRow[] = adminEndpoints.map((endpoint) => ({
    methods: [endpoint.method],
    path: `${adminPrefix}${endpoint.path}`,
    route: (exchange, state) => adminRoute(exchange, endpoint, state),
  }));
  const undeclared: Route = (exchange, state) => adminRoute(exchange, undefined, state);
  rows.push(
    { methods: 'any', path: adminPrefix, route: undeclared },
    { methods: 'any', path: `${adminPrefix}/*`, route: undeclared },
  );
  return rows;
}

async function adminRoute(
  { request, response, pathname, params, search, answer }: Exchange,
  endpoint: AdminEndpoint | undefined,
  { admin, dependencies }: ChatRouteState,
): Promise<void> {
  try {
    if (admin === undefined) throw new AdminError(404, 'not_found', 'The admin API is not available');
    const result = await handleAdmin(
      {
        method: request.method ?? 'GET',
        pathname,
        params,
        search,
        // The admin key travels as a bearer token, the way the default surface carries keys.
        credential: defaultSurface.readClientKey(request.headers, search),
        address: request.socket.remoteAddress ?? '',
        body: async () => {
          if (!isJsonContentType(request.headers['content-type']))
            throw new AdminError(415, 'unsupported_media_type', 'Content-Type must be application/json');
          try {
            // Authenticated, its body about to be read: a client waiting for `100 Continue` gets it.
            if (expectsContinue(request)) response.writeContinue();
            return parseJsonBody(await readBody(request, 65_536));
          } catch (error) {
            if (error instanceof GatewayError)
              throw new AdminError(error.status, 'invalid_request', error.message);
            throw error;
          }
        },
      },
      endpoint,
      admin,
    );
    answer(result.status, result.body);
  } catch (error) {
    if (error instanceof AdminError) {
      const retry = error.retryAfterSeconds;
      answer(
        error.status,
        adminErrorBody(error),
        retry === undefined ? undefined : { 'retry-after': String(retry) },
      );
      return;
    }
    dependencies.logger.error('admin request failed', {
      cause: error instanceof Error ? error.name : 'unknown',
    });
    answer(500, adminErrorBody(new AdminError(500, 'server_error', 'internal error')));
  }
}
