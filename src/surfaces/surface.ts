/**
 * The contract of a client-facing surface: what modelgate needs to serve clients speaking an API
 * (routes, where the key travels, rate-limit headers, model lists, count-tokens), on top of the
 * wire codec functions of `codecs/codec.ts`. A family's surface is also its upstream codec
 * (`FamilyCodec`); a surface-only one (the Responses API) speaks the errors of the family it
 * belongs to.
 */
import type { ChatRequest, ChatResponse, FamilyId, GatewayError, JsonObject } from '../ir/index.ts';
import type {
  FamilyCapabilities,
  HeaderMap,
  PassThrough,
  ResponseContext,
  StreamEncoder,
  SurfaceInput,
  SurfaceRoute,
  UpstreamRequest,
  UpstreamTarget,
  WireCodec,
  WireError,
} from '../codecs/codec.ts';

/** One rate-limit dimension of a client key for a model family. */
export interface RateLimitWindow {
  limit: number;
  remaining: number;
  /** Milliseconds until the window is full again. */
  resetMs: number;
}

/** What a surface reports in its rate-limit headers (the time is injected: codecs have no clock). */
export interface RateLimitState {
  requests: RateLimitWindow;
  tokens: RateLimitWindow;
  /** Unix milliseconds the state was read at. */
  now: number;
}

/**
 * A header's number as text, the same digits as `String(value)`. `String` (and a template) keeps
 * the text of a number it has not seen lately in V8's number-string cache, allocated in the old
 * generation: the remaining count and the reset change with every request, so each answer left
 * ~100 bytes there for a mark-compact to free (bench/README.md, "fourth session"). `toFixed(0)`
 * of an integer allocates an ordinary young string.
 */
export function headerNumber(value: number): string {
  return Number.isInteger(value) ? value.toFixed(0) : String(value);
}

/**
 * A path a surface serves chat (or count-tokens) requests at: a row of the server's route table.
 * `route` is what the path says; a function reads it from the whole path as written, for a path
 * that holds more than the table can (C's `models/{model}:{method}`), undefined when the path is
 * none of the surface's after all (then it is an unknown path in the surface's shape).
 */
export interface SurfacePath {
  /** The route table's syntax: a static path, or one ending in `*` (the rest of the path). */
  readonly path: string;
  readonly route: Readonly<SurfaceRoute> | ((pathname: string) => SurfaceRoute | undefined);
}

/** The route a path names among `routes` (read as the route table reads them), if any. */
export function matchDeclaredRoute(
  routes: readonly SurfacePath[],
  pathname: string,
): SurfaceRoute | undefined {
  for (const { path, route } of routes) {
    const matches = path.endsWith('*') ? pathname.startsWith(path.slice(0, -1)) : pathname === path;
    if (!matches) continue;
    const found = typeof route === 'function' ? route(pathname) : { ...route };
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Does one of these unknown-path patterns (`/v1/chat/*`, `/v1/messages*`) cover the path? */
export function coversPath(patterns: readonly string[], pathname: string): boolean {
  return patterns.some((pattern) => pathname.startsWith(pattern.slice(0, -1)));
}

/**
 * The surfaces: each family's own API, plus surfaces that are only surfaces (the Responses API,
 * Family A's second one). Ledger rows name the surface by this id: a family's id, or a
 * surface-only codec's own (`responses`).
 */
export type SurfaceId = string;

/** A catalog model as a listing shows it (the server maps its catalog entries to this). */
export interface ModelInfo {
  /** The name clients use. */
  name: string;
  family: FamilyId;
  upstreamModel: string;
  contextWindow: number;
  maxOutputTokens: number;
  pricing: {
    inputPerMillion: number;
    outputPerMillion: number;
    cacheReadPerMillion: number;
    cacheWritePerMillion: number;
  };
  capabilities: { streaming: boolean; tools: boolean; vision: boolean };
  /** Other names that route to it. */
  aliases: readonly string[];
}

/** `GET` model lists and single models in the family's own shape. */
export interface ModelListing {
  /** The family's list paths; one model is `{path}/{id}`. */
  readonly paths: readonly string[];
  /**
   * The request carries this family's marks (its own credential or version header): on a path
   * several families list at (`/v1/models`), the first family that claims it answers.
   */
  claims(headers: HeaderMap, searchParams: URLSearchParams): boolean;
  /** One page of `models` (those the key may use), paged by the family's own parameters; bad ones throw a 400. */
  list(models: readonly ModelInfo[], searchParams: URLSearchParams): JsonObject;
  describe(model: ModelInfo): JsonObject;
}

/** What a count-tokens endpoint answers. */
export interface TokenCount {
  inputTokens: number;
  /** The images' share of `inputTokens` (0 when none or unknown). */
  imageTokens: number;
}

/** A family's count-tokens endpoint, as a surface and for the same family's upstream. */
export interface TokenCounting {
  /** The endpoint's body → the canonical request (its model from the body or the route). */
  decodeRequest(input: SurfaceInput): ChatRequest;
  encodeResponse(count: TokenCount): JsonObject;
  /** Same family: the client's body for the upstream's own endpoint (model, credential replaced). */
  encodeUpstreamRequest(
    body: JsonObject,
    request: ChatRequest,
    target: UpstreamTarget,
    clientHeaders: HeaderMap,
  ): UpstreamRequest;
  /** The upstream's answer; throws when it is not one. */
  decodeUpstreamResponse(body: unknown): TokenCount;
}

/**
 * The surface side of an API: what modelgate needs to serve clients speaking it. A family codec is
 * one; a surface-only codec (the Responses API) has no upstream side and speaks the errors and
 * rate-limit headers of the family it belongs to.
 */
export interface SurfaceCodec {
  readonly id: SurfaceId;
  /** The family whose error shapes and rate-limit headers the surface speaks (itself for a family). */
  readonly family: FamilyId;
  readonly capabilities: Pick<FamilyCapabilities, 'permissionError'>;
  /** The surface's chat and count-tokens paths (POST): rows of the server's route table. */
  readonly routes: readonly SurfacePath[];
  /**
   * Where unknown paths look like this surface's (patterns ending in `*`, rows of the route
   * table): their errors come in this surface's shape.
   */
  readonly unknownPaths: readonly string[];
  /** The headers this surface may read the client key from (the same one sent twice is a 400). */
  readonly credentialHeaders: readonly string[];
  /** The client key as this surface carries it. */
  readClientKey(headers: HeaderMap, searchParams: URLSearchParams): string | undefined;
  /** Header rules besides the key (B's version header). */
  checkHeaders(headers: HeaderMap): GatewayError | undefined;
  /**
   * Client headers only this family's upstream understands (B's beta-features flags): the
   * pass-through forwards them; a request translated to another family gets a `warning` naming them.
   */
  readonly familyHeaders: readonly string[];
  decodeRequest(input: SurfaceInput): ChatRequest;
  encodeResponse(response: ChatResponse, context: ResponseContext): JsonObject;
  createStreamEncoder(context: ResponseContext): StreamEncoder;
  /** `requestId`: the gateway's id of the answer, for a family whose error bodies carry it (B). */
  encodeError(error: GatewayError, requestId?: string): WireError;
  /**
   * The response header this surface's SDK reads the request id from, besides the `x-request-id`
   * every answer carries (B's SDKs read `request-id`); absent when the SDK reads `x-request-id`.
   */
  readonly requestIdHeader?: string;
  /** The family's own rate-limit response headers (names and value formats) for this state. */
  rateLimitHeaders(state: RateLimitState): Record<string, string>;
  /**
   * Same-family traffic, when the surface has an upstream that speaks it (a family's own API).
   * Used only when `id` equals the model's family.
   */
  readonly passThrough?: PassThrough;
  /** The surface's count-tokens endpoint (routes with `countTokens`); absent when it has none (A). */
  readonly tokenCounting?: TokenCounting;
}

/**
 * A surface that can pass same-family traffic through (every family's own API): its stream is
 * its upstream's, so the upstream's decoder reads it back (what a stream cut short delivered).
 */
export type PassThroughSurface = SurfaceCodec & Pick<WireCodec, 'passThrough' | 'createStreamDecoder'>;

export function hasPassThrough(surface: SurfaceCodec): surface is PassThroughSurface {
  return surface.passThrough !== undefined && 'createStreamDecoder' in surface;
}

/**
 * A family's own API as a surface: what it adds to the wire codec it fronts (`codec`, the codec's
 * id). A new surface is a folder under `surfaces/` and one line in `surfaces/registry.ts`.
 */
export interface FamilySurface {
  /** The wire codec this surface fronts: its family. */
  readonly codec: FamilyId;
  readonly routes: readonly SurfacePath[];
  readonly unknownPaths: readonly string[];
  readonly credentialHeaders: readonly string[];
  readClientKey(headers: HeaderMap, searchParams: URLSearchParams): string | undefined;
  checkHeaders(headers: HeaderMap): GatewayError | undefined;
  rateLimitHeaders(state: RateLimitState): Record<string, string>;
  readonly requestIdHeader?: string;
  /** `GET` model lists in the family's shape. */
  readonly modelListing: ModelListing;
  readonly tokenCounting?: TokenCounting;
}

/** A family served as a surface: its wire codec joined with its own surface. */
export interface FamilyCodec extends SurfaceCodec, WireCodec {
  readonly id: FamilyId;
  readonly capabilities: FamilyCapabilities;
  readonly modelListing: ModelListing;
  readonly passThrough: PassThrough;
  /** The route one of `routes` reads from this path (the simulator's routing, tests). */
  matchRoute(pathname: string): SurfaceRoute | undefined;
}

/** The family codec of a wire codec and the surface that fronts it (the surface must name it). */
export function joinFamily(wire: WireCodec, surface: FamilySurface): FamilyCodec {
  if (surface.codec !== wire.id)
    throw new Error(`surface of ${surface.codec} cannot front the ${wire.id} codec`);
  const { codec: _codec, ...face } = surface;
  const matchRoute = (pathname: string): SurfaceRoute | undefined =>
    matchDeclaredRoute(surface.routes, pathname);
  return { ...wire, ...face, family: wire.id, matchRoute };
}
