/**
 * The real upstream client: undici keep-alive pools, connect / first-byte / idle-between-chunks
 * timeouts, no redirects, every body consumed or destroyed. Failures become client-safe
 * `GatewayError`s; the URL and key stay in the `cause` (for logs), never in the message.
 */
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../families/codec.ts';
import { GatewayError } from '../ir/index.ts';
import type { TimeoutConfig } from '../config/config.ts';
import type { UpstreamResponse, UpstreamTransport } from './transport.ts';

export function createHttpTransport(timeouts: TimeoutConfig): UpstreamTransport {
  const agent = new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    connections: 256,
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
    throw toGatewayError(error);
  }
  const body = response.body;
  return {
    status: response.statusCode,
    headers: response.headers,
    body: readChunks(body),
    text: async () => {
      try {
        return await body.text();
      } catch (error) {
        throw toGatewayError(error);
      }
    },
    cancel: () => {
      if (!body.destroyed) body.destroy();
    },
  };
}

async function* readChunks(body: Dispatcher.ResponseData['body']): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (error) {
    throw toGatewayError(error);
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/** Maps undici failures to the gateway's vocabulary. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
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
