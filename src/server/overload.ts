/**
 * Load shedding: a cap on chat requests in flight. Beyond it a new request is answered at once
 * with the overloaded error in the shape of the surface it called (A 503 `server_error`, B 529
 * `overloaded_error`, C 503 `UNAVAILABLE`) and `retry-after: 1`, instead of queueing without bound;
 * requests already accepted (streams included) are untouched. Only POSTs count: listings and
 * health checks are cheap and must keep answering under load.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FamilyCodec } from '../families/codec.ts';
import { codecList, codecs } from '../families/registry.ts';
import { GatewayError } from '../ir/index.ts';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface InFlightGuard {
  handler: Handler;
  /** Requests in flight now. */
  readonly inFlight: number;
  /** Requests shed since start. */
  readonly shed: number;
}

export function guardInFlight(handler: Handler, maxInFlight: number): InFlightGuard {
  let inFlight = 0;
  let shed = 0;
  const release = (): void => {
    inFlight--;
  };
  return {
    handler: (request, response) => {
      if (request.method !== 'POST') {
        handler(request, response);
        return;
      }
      if (inFlight >= maxInFlight) {
        shed++;
        shedRequest(request, response, maxInFlight);
        return;
      }
      inFlight++;
      // 'close' comes once per response (finished or not): `on` spares `once`'s wrapper.
      response.on('close', release);
      handler(request, response);
    },
    get inFlight() {
      return inFlight;
    },
    get shed() {
      return shed;
    },
  };
}

function shedRequest(request: IncomingMessage, response: ServerResponse, maxInFlight: number): void {
  const error = new GatewayError(
    'overloaded',
    `the gateway is at capacity (${maxInFlight} requests in flight); retry shortly`,
    { retryAfterSeconds: 1 },
  );
  const wire = surfaceOf(request.url ?? '').encodeError(error);
  const text = JSON.stringify(wire.body);
  response.writeHead(wire.status, {
    ...wire.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  // The unread request body is discarded by node:http; the connection stays usable.
  response.end(text);
}

/** The surface a path belongs to (as the router decides), or the family it resembles. */
function surfaceOf(url: string): FamilyCodec {
  const queryStart = url.indexOf('?');
  const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
  for (const codec of codecList) if (codec.matchRoute(pathname) !== undefined) return codec;
  if (pathname.startsWith('/v1/messages')) return codecs.beta;
  if (pathname.startsWith('/v1beta/') || pathname.startsWith('/v1/models/')) return codecs.gamma;
  return codecs.alpha;
}
