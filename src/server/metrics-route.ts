/**
 * `GET /metrics`: the Prometheus text format. A scraper presents `Authorization: Bearer <token>`
 * with the admin key or `MODELGATE_METRICS_TOKEN`; the route is open to anyone only when the
 * config says `metrics.open: true`. With neither credential configured (and not open) it is 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import type { AdminKey } from '../keys/admin-key.ts';
import type { LoginThrottle } from '../keys/login-throttle.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { renderProcessMetrics } from '../metrics/process-metrics.ts';
import { writeHead } from './write-head.ts';

export const metricsPath = '/metrics';

export interface MetricsEndpoint {
  metrics: GatewayMetrics;
  /** Credentials accepted as a bearer token (the admin key, the metrics token); disabled ones are skipped. */
  credentials: readonly AdminKey[];
  open: boolean;
  /** The text to serve when not this process's own: a worker's (the group's, merged by the primary). */
  render?: () => Promise<string>;
}

const contentType = 'text/plain; version=0.0.4; charset=utf-8';

export async function metricsRoute(
  request: IncomingMessage,
  response: ServerResponse,
  endpoint: MetricsEndpoint | undefined,
  headers: ResponseHeaders,
  throttle: LoginThrottle,
): Promise<void> {
  const fail = (status: number, type: string, message: string, extra: ResponseHeaders = {}): void => {
    const text = JSON.stringify({ error: { message, type, param: null, code: null } });
    writeHead(response, status, {
      ...headers,
      ...extra,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    response.end(text);
  };
  if (endpoint === undefined) {
    fail(404, 'not_found_error', 'Metrics are turned off (metrics.enabled: false)');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    fail(405, 'invalid_request_error', 'Use GET on /metrics', { allow: 'GET, HEAD' });
    return;
  }
  if (!endpoint.open) {
    const enabled = endpoint.credentials.filter((credential) => credential.enabled);
    if (enabled.length === 0) {
      fail(
        404,
        'not_found_error',
        'Metrics need a credential: set MODELGATE_METRICS_TOKEN or MODELGATE_ADMIN_KEY (or metrics.open: true)',
      );
      return;
    }
    // Guessing the admin key here is throttled as at `/admin` (one count per address).
    const address = request.socket.remoteAddress ?? '';
    const lockedFor = throttle.reserve(address);
    if (lockedFor > 0) {
      const seconds = Math.ceil(lockedFor / 1000);
      fail(
        429,
        'rate_limit_error',
        `Too many wrong credentials from this address: try again in ${seconds} s.`,
        {
          'retry-after': String(seconds),
        },
      );
      return;
    }
    const presented = bearerToken(request.headers.authorization);
    if (enabled.some((credential) => credential.verify(presented))) throttle.succeeded(address);
    else {
      fail(401, 'authentication_error', 'Metrics need Authorization: Bearer <metrics token or admin key>', {
        'www-authenticate': 'Bearer realm="modelgate metrics"',
      });
      return;
    }
  }
  let text: string;
  try {
    text =
      endpoint.render === undefined
        ? endpoint.metrics.render() + (await renderProcessMetrics())
        : await endpoint.render();
  } catch {
    // One worker's numbers alone would look like counter resets to Prometheus: fail the scrape.
    fail(503, 'api_error', 'The workers’ metrics could not be collected; scrape again');
    return;
  }
  writeHead(response, 200, {
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
