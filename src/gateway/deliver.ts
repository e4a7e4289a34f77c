/**
 * Delivery: call the upstream for a prepared request and answer the client in the surface's
 * shape — JSON or a piped stream, translated or passed through, one call or an `n` fan-out.
 * Throws a `GatewayError` when nothing was sent to the client yet; once an answer has started,
 * failures end it in-band and are reported in the returned `Delivery`.
 */
import type { FamilyCodec, HeaderMap, UpstreamRequest } from '../families/codec.ts';
import {
  isJsonObject,
  type ChatRequest,
  type GatewayError,
  type JsonObject,
  type Usage,
} from '../ir/index.ts';
import { costUsd, formatUsd } from '../usage/cost.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import type { AttemptRecord, ChatCall } from './chat-call.ts';
import { decodeContext, parseUpstreamJson } from './decode-context.ts';
import { fanOutResponse, fanOutStream } from './fan-out.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';
import { scrubSecret, streamPassThrough, streamTranslated, type StreamOutcome } from './stream-pipeline.ts';
import type { UpstreamRoute } from './upstreams.ts';

export interface Delivery {
  stream: boolean;
  /** What the upstream reported (for a stream: up to where it stopped). */
  usage: Usage | undefined;
  costUsd: number | undefined;
  /** The client got the whole answer. */
  completed: boolean;
  /** Why an answer that had started did not complete. */
  error: GatewayError | undefined;
}

const costHeader = 'x-modelgate-cost-usd';

export async function deliver(
  call: ChatCall,
  prepared: PreparedRequest,
  upstream: UpstreamRoute,
): Promise<Delivery> {
  const candidates = prepared.request.sampling.candidateCount ?? 1;
  if (candidates > 1 && !prepared.target.capabilities.multipleCandidates) {
    return fanOut(call, prepared, upstream, candidates);
  }
  const { request, target, context } = prepared;
  const upstreamRequest = prepared.passThrough
    ? target.passThrough.encodeRequest(call.body as JsonObject, request, upstream.target, call.headers)
    : target.encodeRequest(request, upstream.target);
  const response = await send(call, upstream, upstreamRequest, target);
  const headers = warningHeaders(upstreamRequest.warnings);
  if (request.stream) {
    call.sink.startStream(headers, [costHeader]);
    const decoder = target.createStreamDecoder(decodeContext);
    const stream = { surface: call.surface, decoder, context, secret: upstream.target.apiKey };
    const outcome = prepared.passThrough
      ? await streamPassThrough(
          { ...stream, upstreamModel: prepared.entry.upstreamModel },
          response,
          call.sink,
          call.signal,
        )
      : await streamTranslated(stream, response, call.sink, call.signal);
    return endStream(call, prepared, outcome);
  }
  const upstreamBody = parseUpstreamJson(await response.text());
  const decoded = target.decodeResponse(upstreamBody, decodeContext);
  const body =
    prepared.passThrough && isJsonObject(upstreamBody)
      ? call.surface.passThrough.rewriteResponse(upstreamBody, context)
      : call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  const cost = costUsd(decoded.usage, prepared.entry.pricing);
  call.sink.sendJson(200, JSON.stringify(body), { ...headers, [costHeader]: formatUsd(cost) });
  return { stream: false, usage: decoded.usage, costUsd: cost, completed: true, error: undefined };
}

/** Sends one upstream request; a non-2xx answer becomes the thrown, client-safe error. */
export async function send(
  call: ChatCall,
  upstream: UpstreamRoute,
  request: UpstreamRequest,
  target: FamilyCodec,
): Promise<UpstreamResponse> {
  forwardSimulationHeaders(call.headers, request);
  const startedAt = Date.now();
  const started = performance.now();
  const attempt: AttemptRecord = {
    model: upstream.entry.name,
    family: upstream.entry.family,
    upstreamModel: upstream.target.model,
    status: 0,
    startedAt,
    headersMs: undefined,
  };
  let response: UpstreamResponse;
  try {
    response = await upstream.transport.send(upstream.baseUrl, request, call.signal);
  } catch (error) {
    call.onAttempt?.(attempt);
    throw error;
  }
  attempt.status = response.status;
  attempt.headersMs = performance.now() - started;
  call.onAttempt?.(attempt);
  if (response.status >= 200 && response.status < 300) return response;
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The error body is only a detail: the status alone still maps.
  }
  throw scrubSecret(target.decodeError(response.status, text, response.headers), upstream.target.apiKey);
}

const simulationHeaders = [
  'x-simulate-error',
  'x-simulate-latency-ms',
  'x-simulate-stream-error-after',
  'x-simulate-stream-cut-after',
] as const;

/** Fault injection for the simulator travels through the gateway; nothing else from the client does. */
function forwardSimulationHeaders(headers: HeaderMap, request: UpstreamRequest): void {
  for (const name of simulationHeaders) {
    const value = headers[name];
    if (typeof value === 'string') request.headers[name] = value;
  }
}

export function warningHeaders(warnings: readonly string[]): ResponseHeaders {
  if (warnings.length === 0) return {};
  // RFC 7234 warn-code 299: "miscellaneous persistent warning"; quotes inside are escaped.
  return { warning: warnings.map((warning) => `299 modelgate "${warning.replace(/["\\]/g, '\\$&')}"`) };
}

function endStream(call: ChatCall, prepared: PreparedRequest, outcome: StreamOutcome): Delivery {
  const cost = outcome.usage === undefined ? undefined : costUsd(outcome.usage, prepared.entry.pricing);
  call.sink.end(cost === undefined ? undefined : { [costHeader]: formatUsd(cost) });
  return {
    stream: true,
    usage: outcome.usage,
    costUsd: cost,
    completed: outcome.completed,
    error: outcome.error,
  };
}

async function fanOut(
  call: ChatCall,
  prepared: PreparedRequest,
  upstream: UpstreamRoute,
  candidates: number,
): Promise<Delivery> {
  const { request, target, context } = prepared;
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
  const headers = warningHeaders(warnings);
  if (request.stream) {
    call.sink.startStream(headers, [costHeader]);
    const secret = upstream.target.apiKey;
    const outcome = await fanOutStream(
      call.surface,
      target,
      responses,
      context,
      call.sink,
      call.signal,
      secret,
    );
    return endStream(call, prepared, outcome);
  }
  const decoded = await fanOutResponse(target, responses);
  const cost = costUsd(decoded.usage, prepared.entry.pricing);
  const body = call.surface.encodeResponse({ ...decoded, model: context.model }, context);
  call.sink.sendJson(200, JSON.stringify(body), { ...headers, [costHeader]: formatUsd(cost) });
  return { stream: false, usage: decoded.usage, costUsd: cost, completed: true, error: undefined };
}
