/**
 * Count-tokens endpoints (B `POST /v1/messages/count_tokens`, C `POST …/models/{m}:countTokens`),
 * for every model of every family. A model with a real deployment speaking the surface's wire is
 * asked at that upstream's own count endpoint (the client's body, model and credential replaced),
 * through the deployment's provider: the request says it is a count (`UpstreamRequest.call`), so
 * the provider builds its vendor's URL (Anthropic `/v1/messages/count_tokens`, Gemini
 * `:countTokens`) and authenticates as for a chat;
 * otherwise, or when that upstream has no such endpoint, the count is estimated locally
 * (prompt-tokens.ts, sliced like a chat request's count) and the answer says so in
 * `x-modelgate-token-count: estimate`. Never billed, never sent to a chat endpoint; admitted before
 * any upstream is asked (`CountCall.admit`: the key's model restriction, a spent budget refused, one
 * request — no tokens — against the key's requests per minute on the model's family).
 */
import { familyCodec } from '../surfaces/registry.ts';
import { readUpstreamError } from '../codecs/shared/upstream-errors.ts';
import type { HeaderMap, SurfaceRoute } from '../codecs/codec.ts';
import type { SurfaceCodec, TokenCount, TokenCounting } from '../surfaces/surface.ts';
import { GatewayError, isJsonObject, type ChatRequest } from '../ir/index.ts';
import type { ModelEntry } from '../config/catalog.ts';
import type { ModelRoute } from '../routing/deployment.ts';
import { estimatePromptTokens } from './prompt-tokens.ts';
import type { ModelResolver } from './resolve-model.ts';
import type { ResponseHeaders, ResponseSink } from './response-sink.ts';
import type { UpstreamRouter } from './upstreams.ts';

/** `upstream` (the upstream's own count) or `estimate` (counted here). */
export const tokenCountHeader = 'x-modelgate-token-count';

export interface CountCall {
  surface: SurfaceCodec;
  route: SurfaceRoute;
  body: unknown;
  headers: HeaderMap;
  sink: ResponseSink;
  signal: AbortSignal;
  /** Catalog names the key may use; undefined: every model. */
  allowedModels: ReadonlySet<string> | undefined;
  /**
   * Admits the count as one request on the model's family (budget, model restriction, requests per
   * minute): its rate-limit headers, or throws the refusal. Called before any upstream is asked.
   */
  admit: (model: ModelEntry) => Promise<ResponseHeaders>;
}

export interface CountDependencies {
  models: ModelResolver;
  upstreams: UpstreamRouter;
}

/** Upstream statuses that mean the request itself is wrong: the client hears why. */
const clientMistakes: ReadonlySet<number> = new Set([400, 413, 422]);

export async function countTokens(call: CountCall, dependencies: CountDependencies): Promise<void> {
  const counting = call.surface.tokenCounting;
  if (counting === undefined)
    throw new GatewayError('unknown_route', 'this surface has no count-tokens endpoint');
  // Lenient: content the canonical request cannot carry is not refused, only not counted locally.
  const request = counting.decodeRequest({ body: call.body, route: call.route, lenient: true });
  const entry = dependencies.models.resolve(request.model);
  if (entry === undefined) {
    throw dependencies.models.unknownModel(request.model);
  }
  if (call.allowedModels !== undefined && !call.allowedModels.has(entry.name)) {
    const message = `This API key is not allowed to use the model \`${entry.name}\``;
    throw call.surface.capabilities.permissionError
      ? new GatewayError('permission', message)
      : new GatewayError('not_found', message, { param: 'model' });
  }
  Object.assign(call.sink.headers, await call.admit(entry));
  const counted = await askUpstream(call, counting, request, dependencies.upstreams.route(entry));
  const count =
    counted ?? (await estimatePromptTokens(request, familyCodec(entry.family).capabilities.imageTokens));
  call.sink.sendJson(200, JSON.stringify(counting.encodeResponse(count)), {
    [tokenCountHeader]: counted === undefined ? 'estimate' : 'upstream',
  });
}

/**
 * The upstream's own count, when the model has a real deployment speaking the surface's wire (sent
 * through the deployment's transport: its provider's);
 * undefined when there is none or it cannot count (unreachable, no such endpoint, failing).
 */
async function askUpstream(
  call: CountCall,
  counting: TokenCounting,
  request: ChatRequest,
  route: ModelRoute,
): Promise<TokenCount | undefined> {
  const deployment = route.deployments.find(
    (candidate) => !candidate.simulated && candidate.codec.id === call.surface.id,
  );
  if (deployment === undefined || !isJsonObject(call.body)) return undefined;
  const upstreamRequest = counting.encodeUpstreamRequest(call.body, request, deployment.target, call.headers);
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(deployment.timeouts.firstByteMs)]);
  let status: number;
  let text: string;
  let headers: HeaderMap;
  try {
    const response = await deployment.transport.send(deployment.target.baseUrl, upstreamRequest, signal);
    status = response.status;
    headers = response.headers;
    text = await response.text();
  } catch {
    return undefined;
  }
  if (status >= 200 && status < 300) {
    try {
      return counting.decodeUpstreamResponse(JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  }
  if (clientMistakes.has(status)) {
    const { error } = readUpstreamError(status, headers, deployment.codec.decodeErrorBody(text), Date.now());
    throw deployment.scrubber.scrub(error, status);
  }
  return undefined;
}
