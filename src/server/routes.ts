/**
 * The route table: every path modelgate serves, one lookup (find-my-way's radix tree) per request.
 * `/healthz`, `/livez` and `/readyz` are `probes.ts`. Each route is registered for every method; the route answers a wrong one itself, in its own
 * shape (405 with `allow`). Paths the table does not hold are the surfaces' (their codecs' routes
 * and, for a path that only resembles a surface, its error shape) and the families' model lists:
 * `surfaceOrModels` asks the registry, which reads the codecs when asked.
 */
import FindMyWay from 'find-my-way';
import { matchSurface, resembledSurface } from '../surfaces/registry.ts';
import { adminRoute } from './admin-route.ts';
import { expectsContinue } from './before-body.ts';
import { chatRoute, type ChatRouteState } from './chat-route.ts';
import { answerAs, type Exchange } from './exchange.ts';
import { metricsPath, metricsRoute } from './metrics-route.ts';
import { matchModelsPath } from './models-route.ts';
import { healthz, livez, readyz } from './probes.ts';
import { isStoredResponsePath, storedResponsesRoute } from './responses-route.ts';

/** Answers one request (its promise settles when the answer was given). */
export type Route = (exchange: Exchange, state: ChatRouteState) => Promise<void> | void;

const metrics: Route = ({ request, response, baseHeaders }, { dependencies, throttle }) =>
  metricsRoute(request, response, dependencies.metricsEndpoint, baseHeaders, throttle);

const admin: Route = ({ request, response, pathname, search, answer }, state) =>
  adminRoute(request, pathname, search, state.admin, state.dependencies.logger, answer, () => {
    if (expectsContinue(request)) response.writeContinue();
  });

const dashboard: Route = async ({ request, response, pathname, search, answer }, state) => {
  if (state.dashboard === undefined) answer(404, { error: { message: 'The dashboard is not available' } });
  else await state.dashboard.handle(request, response, pathname, search);
};

/** A surface's chat or count-tokens path, a model list, or an unknown path in the shape it resembles. */
const surfaceOrModels: Route = (exchange, state) => {
  const { pathname } = exchange;
  const match = matchSurface(pathname);
  // Model lists and single models, in the shape of the family the client speaks.
  const modelsPath =
    match === undefined ? matchModelsPath(pathname, exchange.request, exchange.search) : undefined;
  if (modelsPath !== undefined) {
    answerAs(exchange, modelsPath.codec);
    const { request, search, answer, baseHeaders, requestId } = exchange;
    state.modelsRoute(request, modelsPath, search, answer, baseHeaders, requestId);
    return;
  }
  const surface = match?.codec ?? resembledSurface(pathname);
  answerAs(exchange, surface);
  return chatRoute(exchange, match, surface, state);
};

/** `/v1/responses/{id}` and its input items; `/v1/responses/` itself is the surface's unknown path. */
const storedResponses: Route = (exchange, state) => {
  const { request, response, pathname, search, answer, baseHeaders } = exchange;
  if (!isStoredResponsePath(pathname)) return surfaceOrModels(exchange, state);
  const { dependencies, clock, guards } = state;
  const stored = {
    keys: dependencies.keys,
    store: dependencies.responses,
    clock,
    slots: guards.slots,
    admission: guards.admission,
    maxChainChars: dependencies.config.bodyLimitBytes,
  };
  return storedResponsesRoute(request, response, pathname, search, stored, answer, baseHeaders);
};

export interface RouteTable {
  /** The route that answers this path (not decoded, no query string). */
  lookup(method: string, pathname: string): Route;
}

export function createRouteTable(): RouteTable {
  // Exact paths: a trailing slash, another case or a doubled slash is another (unknown) path.
  const router = FindMyWay({
    caseSensitive: true,
    ignoreTrailingSlash: false,
    ignoreDuplicateSlashes: false,
  });
  const add = (path: string, route: Route): void => router.all(path, () => undefined, route);
  add('/healthz', healthz);
  add('/livez', livez);
  add('/readyz', readyz);
  add(metricsPath, metrics);
  add('/admin', admin);
  add('/admin/*', admin);
  add('/dashboard', dashboard);
  add('/dashboard/*', dashboard);
  add('/v1/responses/*', storedResponses);
  return {
    lookup(method, pathname) {
      // An absolute-form or `*` target is no path the table holds (find-my-way would read past a host).
      if (pathname.charCodeAt(0) !== 47) return surfaceOrModels;
      const found = router.find(method as FindMyWay.HTTPMethod, pathname);
      return found === null ? surfaceOrModels : (found.store as Route);
    },
  };
}
