/**
 * One chat request, any surface to any family: decode → resolve model → validate → encode for
 * the model's family (or pass through when the families match) → call upstream → answer in the
 * surface's shape. Errors are thrown as `GatewayError`; the server encodes them for the surface.
 */
import type {
  FamilyCodec,
  HeaderMap,
  ResponseContext,
  SurfaceRoute,
  UpstreamRequest,
} from '../families/codec.ts';
import { codecs } from '../families/registry.ts';
import { GatewayError, isJsonObject, type ChatRequest, type JsonObject } from '../ir/index.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { fanOutResponse, fanOutStream } from './fan-out.ts';
import { decodeContext, parseUpstreamJson } from './decode-context.ts';
import type { ModelResolver } from './resolve-model.ts';
import type { ResponseHeaders, ResponseSink } from './response-sink.ts';
import { scrubSecret, streamPassThrough, streamTranslated } from './stream-pipeline.ts';
import type { UpstreamRoute, UpstreamRouter } from './upstreams.ts';
import { validateAgainstCatalog } from './validate-request.ts';

export interface ChatCall {
  surface: FamilyCodec;
  route: SurfaceRoute;
  body: unknown;
  /** Client headers: only `x-simulate-*` fault-injection headers are ever forwarded upstream. */
  headers: HeaderMap;
  sink: ResponseSink;
  signal: AbortSignal;
}

export interface ChatDependencies {
  models: ModelResolver;
  upstreams: UpstreamRouter;
}

export async function handleChat(call: ChatCall, dependencies: ChatDependencies): Promise<void> {
  // The model decides the family, and with it whether the client's body can pass through as is.
  const named = peekModel(call);
  const peeked = named === undefined ? undefined : dependencies.models.resolve(named);
  const lenient = peeked !== undefined && peeked.family === call.surface.id;
  const request = call.surface.decodeRequest({ body: call.body, route: call.route, lenient });
  const entry = request.model === named ? peeked : dependencies.models.resolve(request.model);
  if (entry === undefined) {
    throw new GatewayError(
      'not_found',
      `The model \`${request.model}\` does not exist or is not served here`,
      {
        param: 'model',
      },
    );
  }
  validateAgainstCatalog(request, entry);
  const target = codecs[entry.family];
  if (target.capabilities.requiresMaxOutputTokens && request.sampling.maxOutputTokens === undefined) {
    request.sampling.maxOutputTokens = entry.maxOutputTokens;
  }
  const upstream = dependencies.upstreams.route(entry);
  const context: ResponseContext = {
    model: request.model,
    includeUsage: request.includeUsage,
    legacyFunctions: request.legacyFunctions === true,
  };
  const candidates = request.sampling.candidateCount ?? 1;
  if (candidates > 1 && !target.capabilities.multipleCandidates) {
    await fanOut(call, request, target, upstream, context, candidates);
    return;
  }
  const passThrough = call.surface.id === target.id && isJsonObject(call.body);
  const upstreamRequest = passThrough
    ? target.passThrough.encodeRequest(call.body as JsonObject, request, upstream.target, call.headers)
    : target.encodeRequest(request, upstream.target);
  const response = await send(call, upstream, upstreamRequest, target);
  const headers = answerHeaders(call.sink, upstreamRequest.warnings);
  if (request.stream) {
    call.sink.startStream(headers);
    const decoder = target.createStreamDecoder(decodeContext);
    if (passThrough) {
      await streamPassThrough(
        {
          surface: call.surface,
          decoder,
          context,
          upstreamModel: entry.upstreamModel,
          secret: upstream.target.apiKey,
        },
        response,
        call.sink,
        call.signal,
      );
    } else {
      const stream = { surface: call.surface, decoder, context, secret: upstream.target.apiKey };
      await streamTranslated(stream, response, call.sink, call.signal);
    }
    return;
  }
  const upstreamBody = parseUpstreamJson(await response.text());
  const decoded = target.decodeResponse(upstreamBody, decodeContext);
  const body =
    passThrough && isJsonObject(upstreamBody)
      ? call.surface.passThrough.rewriteResponse(upstreamBody, context)
      : call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  call.sink.sendJson(200, headers, JSON.stringify(body));
}

/** The model the client named: in the path (C) or the body's `model` (A, B). */
function peekModel(call: ChatCall): string | undefined {
  if (call.route.model !== undefined) return call.route.model;
  return isJsonObject(call.body) && typeof call.body.model === 'string' ? call.body.model : undefined;
}

/** Sends one upstream request; a non-2xx answer becomes the thrown, client-safe error. */
export async function send(
  call: ChatCall,
  upstream: UpstreamRoute,
  request: UpstreamRequest,
  target: FamilyCodec,
): Promise<UpstreamResponse> {
  forwardSimulationHeaders(call.headers, request);
  const response = await upstream.transport.send(upstream.baseUrl, request, call.signal);
  if (response.status >= 200 && response.status < 300) return response;
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The error body is only a detail: the status alone still maps.
  }
  throw scrubSecret(target.decodeError(response.status, text, response.headers), upstream.target.apiKey);
}

function forwardSimulationHeaders(headers: HeaderMap, request: UpstreamRequest): void {
  for (const name of [
    'x-simulate-error',
    'x-simulate-latency-ms',
    'x-simulate-stream-error-after',
    'x-simulate-stream-cut-after',
  ]) {
    const value = headers[name];
    if (typeof value === 'string') request.headers[name] = value;
  }
}

export function answerHeaders(sink: ResponseSink, warnings: readonly string[]): ResponseHeaders {
  if (warnings.length === 0) return sink.baseHeaders;
  // RFC 7234 warn-code 299: "miscellaneous persistent warning"; quotes inside are escaped.
  const values = warnings.map((warning) => `299 modelgate "${warning.replace(/["\\]/g, '\\$&')}"`);
  return { ...sink.baseHeaders, warning: values };
}

async function fanOut(
  call: ChatCall,
  request: ChatRequest,
  target: FamilyCodec,
  upstream: UpstreamRoute,
  context: ResponseContext,
  candidates: number,
): Promise<void> {
  const single: ChatRequest = { ...request, sampling: { ...request.sampling } };
  delete single.sampling.candidateCount;
  const upstreamRequest = target.encodeRequest(single, upstream.target);
  const warnings = [...upstreamRequest.warnings, `n=${candidates} is served by ${candidates} upstream calls`];
  const settled = await Promise.allSettled(
    Array.from({ length: candidates }, () =>
      send(call, upstream, { ...upstreamRequest, headers: { ...upstreamRequest.headers } }, target),
    ),
  );
  const responses = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    for (const response of responses) response.cancel();
    throw failure.reason;
  }
  const headers = answerHeaders(call.sink, warnings);
  if (request.stream) {
    call.sink.startStream(headers);
    await fanOutStream(
      call.surface,
      target,
      responses,
      context,
      call.sink,
      call.signal,
      upstream.target.apiKey,
    );
    return;
  }
  const decoded = await fanOutResponse(target, responses);
  call.sink.sendJson(
    200,
    headers,
    JSON.stringify(call.surface.encodeResponse({ ...decoded, model: context.model }, context)),
  );
}
