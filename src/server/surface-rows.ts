/**
 * The surfaces' rows of the route table, read from the registry when the table is built (a
 * surface registered before the gateway is built brings its rows): each surface's chat and
 * count-tokens paths (`SurfaceCodec.routes`), each family's model lists (`ModelListing.paths`, and
 * `{path}/*` for one model), and where unknown paths answer in a surface's shape
 * (`SurfaceCodec.unknownPaths`). Claims on one path share its row, in the order the registry has
 * always read them: a surface's route, then a model list, then the path's unknown-path answer.
 */
import type { FamilyCodec, SurfaceCodec, SurfacePath } from '../surfaces/surface.ts';
import { familySurfaces, registry, surfaces, type SurfaceMatch } from '../surfaces/registry.ts';
import { chatRoute, type ChatRouteState } from './chat-route.ts';
import { answerAs, type Exchange } from './exchange.ts';
import type { Route, RouteRow } from './route-row.ts';

/** Everything the surfaces say of one path. */
interface PathClaims {
  chats: { surface: SurfaceCodec; declared: SurfacePath }[];
  /** Families listing their models at this path. */
  lists: FamilyCodec[];
  /** Families describing one model at this path (`{list path}/*`). */
  models: FamilyCodec[];
  /** The surface whose shape answers the path when nothing above does. */
  unknown: SurfaceCodec | undefined;
}

export function surfaceRows(): RouteRow[] {
  const claims = new Map<string, PathClaims>();
  const at = (path: string): PathClaims => {
    let claim = claims.get(path);
    if (claim === undefined) {
      claim = { chats: [], lists: [], models: [], unknown: undefined };
      claims.set(path, claim);
    }
    return claim;
  };
  for (const surface of surfaces())
    for (const declared of surface.routes) at(declared.path).chats.push({ surface, declared });
  for (const family of familySurfaces())
    for (const path of family.modelListing.paths) {
      at(path).lists.push(family);
      at(`${path}/*`).models.push(family);
    }
  for (const surface of surfaces()) for (const path of surface.unknownPaths) at(path).unknown ??= surface;
  return [...claims].map(([path, claim]) => ({ methods: 'any', path, route: routeOf(path, claim) }));
}

/** The chat route, every answer from here on in `surface`'s shape (its request-id header included). */
function chatIn(
  exchange: Exchange,
  match: SurfaceMatch | undefined,
  surface: SurfaceCodec,
  state: ChatRouteState,
): Promise<void> | void {
  answerAs(exchange, surface);
  return chatRoute(exchange, match, surface, state);
}

/** A path no row holds: an unknown path in the default surface's shape. */
export const unknownPath: Route = (exchange, state) =>
  chatIn(exchange, undefined, registry.defaultSurface(), state);

/** The unknown-path answer in `surface`'s shape. */
export function unknownIn(surface: SurfaceCodec): Route {
  return (exchange, state) => chatIn(exchange, undefined, surface, state);
}

function routeOf(path: string, { chats, lists, models, unknown }: PathClaims): Route {
  const [only] = chats;
  // The common row: one surface's static path, nothing else (no per-request reading).
  if (
    chats.length === 1 &&
    only !== undefined &&
    typeof only.declared.route !== 'function' &&
    lists.length === 0
  ) {
    const match: SurfaceMatch = { codec: only.surface, route: only.declared.route };
    return (exchange, state) => chatIn(exchange, match, only.surface, state);
  }
  // Unknown paths here answer in the shape of the surface whose unknown paths cover this row.
  const shape = unknown ?? registry.resembledSurface(path.replace(/[*:].*$/, ''));
  const listing = listingOf(lists);
  const model = listingOf(models);
  return (exchange, state) => {
    for (const { surface, declared } of chats) {
      const route = typeof declared.route === 'function' ? declared.route(exchange.pathname) : declared.route;
      if (route !== undefined) return chatIn(exchange, { codec: surface, route }, surface, state);
    }
    if (listing !== undefined) {
      listModels(exchange, state, listing, '');
      return;
    }
    const id = exchange.params['*'] ?? '';
    // `models/{m}:method` is a method call (a C route), not a model: unknown methods are 404s.
    if (model !== undefined && !id.includes(':')) {
      listModels(exchange, state, model, id);
      return;
    }
    return chatIn(exchange, undefined, shape, state);
  };
}

/** The families that list at one path, and the one that answers a request no family claims. */
interface Listing {
  families: readonly FamilyCodec[];
  /** The default surface's family when it lists here (A: a bearer key is every family's), else the first. */
  unclaimed: FamilyCodec;
}

function listingOf(families: readonly FamilyCodec[]): Listing | undefined {
  const defaultId = registry.defaultSurface().id;
  const unclaimed = families.find((codec) => codec.id === defaultId) ?? families[0];
  return unclaimed === undefined ? undefined : { families, unclaimed };
}

/** A model list (`id` '') or one model, in the shape of the family whose marks the request carries. */
function listModels(exchange: Exchange, state: ChatRouteState, listing: Listing, id: string): void {
  const { request, search } = exchange;
  const codec =
    listing.families.length === 1
      ? listing.unclaimed
      : (listing.families.find((family) => family.modelListing.claims(request.headers, search)) ??
        listing.unclaimed);
  answerAs(exchange, codec);
  state.modelsRoute(
    request,
    { codec, id },
    search,
    exchange.answer,
    exchange.baseHeaders,
    exchange.requestId,
  );
}
