/**
 * The real upstream client: undici keep-alive pools (bounded per origin), a connect timeout, no
 * redirects, every body consumed or destroyed. The first-byte and idle timers are the caller's
 * (`CallTimers`, through the signal), so they are per model and the same for every transport.
 * Failures become client-safe `GatewayError`s; the URL and key stay in the `cause` (for logs).
 */
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../families/codec.ts';
import { GatewayError } from '../ir/index.ts';
import type { UpstreamResponse, UpstreamTransport } from './transport.ts';

export interface HttpTransportOptions {
  connectMs: number;
  /** Keep-alive connections per upstream origin. */
  connections: number;
}

export function createHttpTransport(options: HttpTransportOptions): UpstreamTransport {
  const agent = new Agent({
    connect: { timeout: options.connectMs },
    // Disabled here: the caller's CallTimers abort the signal (per-model first-byte and idle timers).
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 30_000,
    connections: options.connections,
    pipelining: 1,
  });
  return {
    send: (baseUrl, request, signal) => send(agent, baseUrl, request, signal),
    close: () => agent.close(),
  };
}

async function send(
  agent: Agent,
  baseUrl: string,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const url = new URL(baseUrl + request.path);
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal,
    });
  } catch (error) {
    throw toGatewayError(error, signal);
  }
  const body = response.body;
  return {
    status: response.statusCode,
    headers: response.headers,
    body: readChunks(body, signal),
    text: async () => {
      try {
        return await body.text();
      } catch (error) {
        throw toGatewayError(error, signal);
      }
    },
    cancel: () => {
      if (!body.destroyed) body.destroy();
    },
  };
}

async function* readChunks(
  body: Dispatcher.ResponseData['body'],
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (error) {
    throw toGatewayError(error, signal);
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/** Maps undici failures to the gateway's vocabulary; a timer's abort reason is reported as is. */
export function toGatewayError(error: unknown, signal?: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error;
  if (signal?.aborted === true && signal.reason instanceof GatewayError) return signal.reason;
  if (error instanceof undiciErrors.HeadersTimeoutError) {
    return new GatewayError('timeout', 'the upstream did not answer in time', { cause: error });
  }
  if (error instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('timeout', 'the upstream stopped sending data', { cause: error });
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('timeout', 'connecting to the upstream timed out', { cause: error });
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new GatewayError('upstream', 'the request was cancelled', { cause: error });
  }
  return new GatewayError('upstream', 'the upstream could not be reached', { cause: error });
}
