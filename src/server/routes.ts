/**
 * The route table: every path modelgate serves is a row, one lookup (find-my-way's radix tree)
 * per request. Rows: the probes (`probes.ts`), `/metrics`, each admin endpoint (`admin-route.ts`),
 * each dashboard endpoint (`dashboard/dashboard-endpoints.ts`), the stored responses, and the
 * surfaces' rows read from the registry (`surface-rows.ts`: chat paths, model lists, the shapes of
 * unknown paths). A path no row holds is an unknown path in the default surface's shape.
 *
 * Paths are matched as written: a trailing slash, another case, a doubled slash or a
 * percent-encoded letter is another path, and the parameters a route is given are as written.
 */
import FindMyWay from 'find-my-way';
import { dashboardEndpoints } from '../dashboard/dashboard-endpoints.ts';
import type { DashboardEndpoint } from '../dashboard/dashboard-endpoint.ts';
import { responsesSurface } from '../surfaces/responses/index.ts';
import { adminRows } from './admin-route.ts';
import type { PathParams } from './exchange.ts';
import { metricsPath, metricsRoute } from './metrics-route.ts';
import { healthz, livez, readyz } from './probes.ts';
import { storedResponsesRoute } from './responses-route.ts';
import type { Route, RouteRow } from './route-row.ts';
import { surfaceRows, unknownIn, unknownPath } from './surface-rows.ts';

export type { Route, RouteRow } from './route-row.ts';

const metrics: Route = ({ request, response, baseHeaders }, { dependencies, throttle }) =>
  metricsRoute(request, response, dependencies.metricsEndpoint, baseHeaders, throttle);

function dashboardRow(endpoint: DashboardEndpoint): RouteRow {
  return {
    methods: endpoint.methods,
    path: endpoint.path,
    route: async ({ request, response, params, search, answer }, { dashboard }) => {
      if (dashboard === undefined) answer(404, { error: { message: 'The dashboard is not available' } });
      else await dashboard.serve(endpoint, request, response, params, search);
    },
  };
}

/** `/v1/responses/{id}` and its input items; an empty id is the surface's unknown path. */
function storedResponses(inputItems: boolean): Route {
  const unknown = unknownIn(responsesSurface);
  return (exchange, state) => {
    const { request, response, params, search, answer, baseHeaders } = exchange;
    const id = params.id ?? '';
    if (id === '') return unknown(exchange, state);
    const { dependencies, clock, guards } = state;
    const stored = {
      keys: dependencies.keys,
      store: dependencies.responses,
      clock,
      slots: guards.slots,
      admission: guards.admission,
      maxChainChars: dependencies.config.bodyLimitBytes,
    };
    return storedResponsesRoute(request, response, { id, inputItems }, search, stored, answer, baseHeaders);
  };
}

export interface RouteTable {
  /** The route that answers this path (not decoded, no query string), and its parameters. */
  lookup(method: string, pathname: string): { route: Route; params: PathParams };
  /** Every row: its methods and path (what the table holds, for tests and the docs). */
  readonly rows: readonly Pick<RouteRow, 'methods' | 'path'>[];
}

const noParams: PathParams = {};
const noSearch: Record<string, string> = Object.freeze({});

export function createRouteTable(): RouteTable {
  const rows: RouteRow[] = [
    { methods: 'any', path: '/healthz', route: healthz },
    { methods: 'any', path: '/livez', route: livez },
    { methods: 'any', path: '/readyz', route: readyz },
    { methods: 'any', path: metricsPath, route: metrics },
    ...adminRows(),
    ...dashboardEndpoints.map(dashboardRow),
    { methods: 'any', path: '/v1/responses/:id', route: storedResponses(false) },
    { methods: 'any', path: '/v1/responses/:id/input_items', route: storedResponses(true) },
    ...surfaceRows(),
  ];
  // Exact paths: a trailing slash, another case or a doubled slash is another (unknown) path.
  const router = FindMyWay({
    caseSensitive: true,
    ignoreTrailingSlash: false,
    ignoreDuplicateSlashes: false,
    // Model names and key names are parameters: bounded by the header limit, not find-my-way's 100.
    maxParamLength: 65_536,
    // The handler cut the query string off already: nothing to parse, nothing to allocate.
    querystringParser: () => noSearch,
  });
  for (const { methods, path, route } of rows) {
    if (methods === 'any') router.all(path, () => undefined, route);
    else router.on([...methods], path, () => undefined, route);
  }
  return {
    rows: rows.map(({ methods, path }) => ({ methods, path })),
    lookup(method, pathname) {
      // An absolute-form or `*` target is no path the table holds (find-my-way would read past a host).
      if (pathname.charCodeAt(0) !== 47) return { route: unknownPath, params: noParams };
      const found = router.find(method as FindMyWay.HTTPMethod, asWritten(pathname));
      return found === null
        ? { route: unknownPath, params: noParams }
        : { route: found.store as Route, params: found.params };
    },
  };
}

/**
 * find-my-way decodes a path before matching it and reads `#` as its end; escaping `%` and `#`
 * makes it match the path as written and hand back parameters as written.
 */
function asWritten(pathname: string): string {
  if (pathname.indexOf('%') === -1 && pathname.indexOf('#') === -1) return pathname;
  return pathname.replaceAll('%', '%25').replaceAll('#', '%23');
}
