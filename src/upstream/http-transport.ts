/**
 * The real upstream client: undici keep-alive pools (one per origin, bounded), a connect timeout,
 * no redirects, every body consumed or destroyed. The first-byte and idle timers are the caller's
 * (`CallTimers`, through the signal), so they are per model and the same for every transport.
 * Failures become client-safe `GatewayError`s; the URL and key stay in the `cause` (for logs).
 *
 * Built on undici's low-level `dispatch` (see `UpstreamCall`) rather than `request()`: no Readable
 * body stream, no async-resource bookkeeping and no URL parsing per call. On a 1-connection
 * benchmark that is a measurable share of the gateway's whole added latency.
 */
import { Pool } from './undici-parts.ts';
import type { UpstreamRequest } from '../codecs/codec.ts';
import type { UpstreamResponse, UpstreamTransport } from './transport.ts';
import { UpstreamCall } from './upstream-call.ts';
import { toGatewayError } from './upstream-errors.ts';

export interface HttpTransportOptions {
  connectMs: number;
  /** Keep-alive connections per upstream origin. */
  connections: number;
  /** The most a non-streamed answer (or an error body) may hold (`upstreamLimits.maxResponseBytes`). */
  maxResponseBytes?: number;
}

/** Where a configured base URL sends requests: its origin's pool and the path before `/v1`. */
interface BaseTarget {
  pool: Pool;
  pathPrefix: string;
}

export function createHttpTransport(options: HttpTransportOptions): UpstreamTransport {
  const pools = new Map<string, Pool>();
  const bases = new Map<string, BaseTarget>();
  const targetOf = (baseUrl: string): BaseTarget => {
    let target = bases.get(baseUrl);
    if (target === undefined) {
      // Parsed once per base URL (the set is the config's, so bounded).
      const url = new URL(baseUrl);
      let pool = pools.get(url.origin);
      if (pool === undefined) {
        pool = new Pool(url.origin, {
          connect: { timeout: options.connectMs },
          // Disabled here: the caller's CallTimers abort the signal (per-model first-byte and idle timers).
          headersTimeout: 0,
          bodyTimeout: 0,
          keepAliveTimeout: 30_000,
          connections: options.connections,
          pipelining: 1,
        });
        pools.set(url.origin, pool);
      }
      target = { pool, pathPrefix: url.pathname.replace(/\/+$/, '') };
      bases.set(baseUrl, target);
    }
    return target;
  };
  return {
    send: (baseUrl: string, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> => {
      let target: BaseTarget;
      try {
        target = targetOf(baseUrl);
      } catch (error) {
        return Promise.reject(toGatewayError(error, signal));
      }
      return new UpstreamCall(signal, options.maxResponseBytes).start(target.pool, {
        path: target.pathPrefix + request.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
    },
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  };
}
