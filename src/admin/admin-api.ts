/**
 * The admin HTTP API under `/admin/…`, authenticated by the admin key (MODELGATE_ADMIN_KEY, as
 * `Authorization: Bearer …`). Client keys are refused here; the admin key is refused on the model
 * surfaces (it is not a client key). Framework-free: a request in, a status and a JSON body out.
 * Each endpoint is a row of the gateway's route table (`adminEndpoints`); a method and path no row
 * declares is answered by `handleAdmin` without an endpoint: authenticated, then a 404.
 *
 *   GET    /admin/keys[?all=true]     list keys (never key material or hashes)
 *   POST   /admin/keys                create: {name, models?, budget_usd?, period_budget_usd?, budget_period?,
 *                                      rpm?, tpm?, expires?} → the key, once
 *   GET    /admin/keys/{id|name}      one key
 *   PATCH  /admin/keys/{id|name}      update (null clears a field)
 *   DELETE /admin/keys/{id|name}      revoke
 *   GET    /admin/usage?key=&since=24h&until=&by=model|key|day
 *   GET    /admin/health              upstream health, when the gateway provides it
 */
import { StoreUnavailableError } from '../store/store-errors.ts';
import { AdminError, noAdminRoute, tooManyGuesses } from './admin-error.ts';
import type { AdminAnswer, AdminDependencies, AdminRequest } from './admin-request.ts';
import { createKey, listKeys, revokeKey, showKey, updateKey } from './keys-api.ts';
import { usage, usageBody } from './usage-api.ts';

/** One admin endpoint: a row of the route table (method and path, `:key` a parameter). */
export interface AdminEndpoint {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path below `/admin`, in the route table's syntax. */
  readonly path: string;
  readonly answer: (request: AdminRequest, dependencies: AdminDependencies) => Promise<AdminAnswer>;
}

/** Where every admin path starts; the dashboard serves the key endpoints under its own. */
export const adminPrefix = '/admin';

export const adminEndpoints: readonly AdminEndpoint[] = [
  { method: 'GET', path: '/keys', answer: listKeys },
  { method: 'POST', path: '/keys', answer: createKey },
  { method: 'GET', path: '/keys/:key', answer: showKey },
  { method: 'PATCH', path: '/keys/:key', answer: updateKey },
  { method: 'DELETE', path: '/keys/:key', answer: revokeKey },
  {
    method: 'GET',
    path: '/usage',
    answer: async (request, dependencies) => ({
      status: 200,
      body: usageBody(await usage(request.search, dependencies)),
    }),
  },
  {
    method: 'GET',
    path: '/health',
    answer: (_request, dependencies) => {
      if (dependencies.health === undefined)
        throw new AdminError(404, 'not_found', 'Upstream health is not available');
      return Promise.resolve({ status: 200, body: dependencies.health() });
    },
  },
];

/**
 * A request under `/admin`: the admin key checked (and guesses throttled) first, then `endpoint`
 * answers; without one (a method and path no row declares) it is a 404.
 */
export async function handleAdmin(
  request: AdminRequest,
  endpoint: AdminEndpoint | undefined,
  dependencies: AdminDependencies,
): Promise<AdminAnswer> {
  if (!dependencies.adminKey.enabled)
    throw new AdminError(
      401,
      'admin_disabled',
      'The admin API is disabled: set MODELGATE_ADMIN_KEY to enable it',
    );
  const address = request.address ?? '';
  const lockedFor = dependencies.throttle.reserve(address);
  if (lockedFor > 0) throw tooManyGuesses(lockedFor);
  if (!dependencies.adminKey.verify(request.credential))
    throw new AdminError(401, 'invalid_admin_key', 'Invalid or missing admin key');
  dependencies.throttle.succeeded(address);
  if (endpoint === undefined) throw noAdminRoute(request.method, request.pathname);
  return answerAdmin(request, endpoint, dependencies);
}

/**
 * An endpoint's answer for a caller already known to be the admin: the admin key (above) or a
 * dashboard session signed in with it (dashboard/dashboard-route.ts), one logic for both.
 */
export async function answerAdmin(
  request: AdminRequest,
  endpoint: AdminEndpoint,
  dependencies: AdminDependencies,
): Promise<AdminAnswer> {
  try {
    return await endpoint.answer(request, dependencies);
  } catch (error) {
    if (error instanceof StoreUnavailableError)
      throw new AdminError(503, 'store_unavailable', `${error.message}; retry shortly`);
    throw error;
  }
}
