/**
 * The wire contract of one API family: the shapes its codec functions take and give, whether the
 * family is read as a client's request or written to an upstream. Every function is pure over
 * plain data: no HTTP framework, store, config or clock. Decoders throw `GatewayError` (kind
 * `invalid_request` for client mistakes). What a client-facing surface adds (routes, keys,
 * rate-limit headers, model lists, count-tokens) is `surfaces/surface.ts`.
 */
import type {
  ChatRequest,
  ChatResponse,
  FamilyId,
  GatewayError,
  JsonObject,
  StreamEvent,
} from '../ir/index.ts';
import type { SseMessage } from '../sse/parse-sse.ts';

/** Request headers, lower-case names, as node:http gives them. */
export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

/** What the router learned from the path of a surface request. */
export interface SurfaceRoute {
  /** The model named in the path (C), when the family puts it there. */
  model?: string;
  /** The path itself selects streaming (C `:streamGenerateContent`). */
  stream?: boolean;
  /** The path asks for a token count (B `/v1/messages/count_tokens`, C `:countTokens`), not a generation. */
  countTokens?: boolean;
}

/** What the Responses API does with built-in tools (config `responses.builtInTools`). */
export type BuiltInToolPolicy = 'drop-unless-forced' | 'drop' | 'reject';

export interface SurfaceInput {
  /** The parsed JSON body. */
  body: unknown;
  route: SurfaceRoute;
  /**
   * The request goes to an upstream of the same family by pass-through: content the IR cannot
   * carry (B documents, server tools…) is skipped instead of refused, since the client's own
   * body is what goes upstream.
   */
  lenient?: boolean;
  /**
   * Responses API: built-in tools of the provider's own service (`web_search`…) are a 400 naming
   * the tool (`reject`, and when unset), left out with a note (`drop`: agents that always send
   * them, like Codex CLI, then run on any family), or left out unless `tool_choice` forces one
   * (`drop-unless-forced`: the config's default). Operator config, passed in by the HTTP layer.
   */
  builtInTools?: BuiltInToolPolicy;
}

/**
 * Per-request facts a stateful surface (the Responses API) needs to shape its answer that neither
 * the request nor the upstream's answer carries: its own id and creation time, the client's body
 * (echoed in the answer), and where to hand the finished answer (to be stored). Set by the HTTP
 * layer; the encoders stay pure functions of their inputs.
 */
export interface SurfaceTurn {
  /** The id the client will see (`resp_…`). */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The client's request body, as the surface decoded it. */
  body: JsonObject;
  /** Told the finished answer (status completed or incomplete) once it is whole. */
  onFinished?: (answer: JsonObject) => void;
  /** The operator's choice for built-in tools (see `SurfaceInput.builtInTools`). */
  builtInTools?: BuiltInToolPolicy;
}

/** How to shape a response for the client. */
export interface ResponseContext {
  /** The model name to show the client: the name it asked for. */
  model: string;
  /** A: the client set `stream_options.include_usage`. */
  includeUsage: boolean;
  /** A: the client used legacy `functions`, so calls come back as `function_call`. */
  legacyFunctions: boolean;
  /** Set for surfaces that answer with their own ids (the Responses API). */
  turn?: SurfaceTurn;
}

/** Injected so decoders that must invent ids (C has none) stay deterministic under test. */
export interface DecodeContext {
  generateId: (prefix: string) => string;
  /** Unix milliseconds. */
  now: () => number;
}

/** Where and as whom to call an upstream. */
export interface UpstreamTarget {
  /** The part before `/v1`, no trailing slash. */
  baseUrl: string;
  /** The upstream credential; undefined for keyless local servers. */
  apiKey: string | undefined;
  /** The upstream model id. */
  model: string;
  /**
   * The catalog marks the model a reasoning model (`capabilities.reasoning`): A's reasoning models
   * take `max_completion_tokens` and only the default sampling.
   */
  reasoning?: boolean | undefined;
}

export interface UpstreamRequest {
  /** Path and query after the base URL, e.g. `/v1/messages`. Never contains a credential. */
  path: string;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
  /** Human-readable notes on what the translation dropped or clamped (sent as `warning` headers). */
  warnings: string[];
  /**
   * What the call is, for the provider that carries it (`providers/provider.ts`): providers build
   * URLs, sign and re-frame from it without parsing the body. Set by every codec's encoders.
   */
  call?: UpstreamCall;
}

/** The upstream model id, whether the call streams, and which endpoint it is for. */
export interface UpstreamCall {
  readonly model: string;
  readonly stream: boolean;
  readonly operation: 'chat' | 'count-tokens';
}

/**
 * What a family reads from its own upstream error body; the shared rules
 * (`codecs/shared/upstream-errors.ts`) make the client-safe error of it. Every field is optional:
 * error bodies are often not the family's shape (a proxy's HTML page, an empty body).
 */
export interface UpstreamErrorDetail {
  /** The upstream's own words (shown only for kinds that describe the client's request). */
  message?: string | undefined;
  /** The offending request field (A `param`). */
  param?: string | undefined;
  /** A 429 says a spent quota, not a rate (A `insufficient_quota`, B `enforced_spend_limit_reached`). */
  quota?: boolean | undefined;
  /** The body says the gateway's own credential was refused whatever the status (C `API_KEY_INVALID` on a 400). */
  credentialsRejected?: boolean | undefined;
  /** A wait the body states (C `RetryInfo.retryDelay`), in ms; the headers' wait wins over it. */
  retryAfterMs?: number | undefined;
}

export interface WireError {
  status: number;
  body: JsonObject;
  headers: Record<string, string>;
}

export type EmitStreamEvent = (event: StreamEvent) => void;

/** Upstream SSE → canonical events. One instance per stream: it holds the stream's state. */
export interface StreamDecoder {
  push(message: SseMessage, emit: EmitStreamEvent): void;
  /** The upstream closed. Emit the closing events, or an `error` event if the stream ended early. */
  end(emit: EmitStreamEvent): void;
}

/** Canonical events → the SSE text a client of this family expects. One instance per stream. */
export interface StreamEncoder {
  /** The SSE text for this event; '' when the family has nothing to say for it. */
  encode(event: StreamEvent): string;
}

/** Same-family traffic: the client's own bytes go upstream with only the model and credentials changed. */
export interface PassThrough {
  /** `clientHeaders` lets a family forward its own protocol headers (B's version) unchanged. */
  encodeRequest(
    body: JsonObject,
    request: ChatRequest,
    target: UpstreamTarget,
    clientHeaders?: HeaderMap,
  ): UpstreamRequest;
  /** The upstream's JSON body for the client, with the model shown as the client named it. */
  rewriteResponse(body: JsonObject, context: ResponseContext): JsonObject;
  /**
   * The same answer made by editing the upstream's own text (`body` is that text parsed), which
   * spares re-encoding the whole answer; undefined when it has to be re-encoded (`rewriteResponse`).
   */
  rewriteResponseText?(text: string, body: JsonObject, context: ResponseContext): string | undefined;
  /**
   * One upstream SSE message re-framed for the client without re-encoding its JSON ('' drops it),
   * the model named as the client named it, whatever id the upstream answered with.
   */
  forwardStreamMessage(message: SseMessage, context: ResponseContext): string;
  /** A stream's forwarder: which events it may pass on unread, and how (one per stream). */
  streamForwarder(context: ResponseContext): StreamForwarder;
}

/**
 * Passes a same-family stream's events on without parsing them, except those the gateway must
 * read: events that may carry usage, a finish reason, an error or the stream's end.
 */
export interface StreamForwarder {
  /**
   * Passes on the event that starts at `start` in `events` (whole events as they came: `\n` line
   * ends, each ending with its blank line) when it need not be read: hands `write` its text for
   * the client (the model renamed where it names one) and returns where it ends; -1 when it must
   * be read (then it is decoded and goes through `forwardStreamMessage`). Searches, not a parse: a
   * false -1 costs a parse, a false pass would lose usage.
   */
  forward(events: string, start: number, write: (text: string) => void): number;
}

export interface FamilyCapabilities {
  /** The family can return several candidates in one call (A `n`, C `candidateCount`). */
  multipleCandidates: boolean;
  /** The family rejects a request without an output cap (B `max_tokens`). */
  requiresMaxOutputTokens: boolean;
  /**
   * The family has a permission error for a key not allowed a model (B `permission_error`, C
   * `PERMISSION_DENIED`). Without one (A), such a request is answered as model not found.
   */
  permissionError: boolean;
  /**
   * The family's upstream fetches images given by https URL itself (A `image_url`, B url source).
   * False (C): it needs the bytes inline, so a URL is a 400 unless the operator enabled fetching.
   */
  imageUrls: boolean;
  /**
   * Input tokens one image is estimated at when a count is made locally (the gateway does not
   * decode images): A 765 (a 1024×1024 image in detail), B 1,600 (the family's largest image
   * size), C 258 (the family's fixed per-image cost).
   */
  imageTokens: number;
}

/** How a family's upstream caches prompt prefixes (what the built-in simulator imitates). */
export interface PromptCaching {
  /** Only prefixes the client marks are cached (B `cache_control`); else every long prompt is, automatically. */
  readonly explicit: boolean;
  /** Automatic cache reads are reported in steps of this many tokens (A: 128). */
  readonly granularity: number;
  /** The request's own automatic-caching marker (B top-level `cache_control`): its TTL, '' the default, undefined none. */
  automaticTtl?(request: ChatRequest): string | undefined;
  /** The family's own limit on cache markers: throws its 400 (B: four breakpoints). */
  checkMarkers?(request: ChatRequest): void;
}

/**
 * What the rest of the gateway needs to know about a family besides its wire shapes: defaults the
 * configuration starts from, and how its upstream behaves for the built-in simulator. Everything a
 * family knows lives in its folder; nothing outside it names a family.
 */
export interface FamilyDescriptor {
  /**
   * The prefix of the family's environment variables (upper case): `{prefix}_BASE_URL`,
   * `{prefix}_API_KEY`, `{prefix}_FAULT_HEADERS`.
   */
  readonly envPrefix: string;
  /** Per-client-key limits when the configuration sets none (the spec's table). */
  readonly defaultLimits: { readonly requestsPerMinute: number; readonly tokensPerMinute: number };
  /** Cached-input prices as multiples of the input price, when a model's configuration names none. */
  readonly cachePriceFactors: { readonly read: number; readonly write: number };
  /** Id prefixes the family's real upstream uses (the simulator's answers carry them). */
  readonly idPrefixes: { readonly response: string; readonly toolCall: string };
  readonly promptCaching: PromptCaching;
  /**
   * The provider preset (`providers/registry.ts`) of the vendor whose API this wire is, if any: the
   * family's spec upstream (`{prefix}_BASE_URL`, `upstreams:`) goes through it, keeping the spec's
   * own header names and adding the vendor's, so the same setting reaches the vendor too.
   */
  readonly vendorPreset?: string;
}

/**
 * One wire format's codec: the pure functions that read and write it, both as a client's request
 * (decode request, encode response, stream and error) and as an upstream's (encode request, decode
 * response, stream and error body), plus the pass-through. A family is a wire codec; what a client
 * of it needs besides (routes, where the key travels, rate-limit headers, model lists) is its
 * surface (`surfaces/surface.ts`). A new wire format is a folder under `codecs/` and one line in
 * `codecs/registry.ts`.
 */
export interface WireCodec {
  readonly id: FamilyId;
  readonly capabilities: FamilyCapabilities;
  readonly descriptor: FamilyDescriptor;
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
  encodeRequest(request: ChatRequest, target: UpstreamTarget): UpstreamRequest;
  decodeResponse(body: unknown, context: DecodeContext): ChatResponse;
  /** The family's stream read into canonical events (an upstream's, or a client's stream read back). */
  createStreamDecoder(context: DecodeContext): StreamDecoder;
  /**
   * What the body of a non-2xx upstream answer says, in this family's shape (the status, the wait
   * and the client-safe error are the shared rules' business: `readUpstreamError`). Never throws.
   */
  decodeErrorBody(bodyText: string): UpstreamErrorDetail;
  readonly passThrough: PassThrough;
}
