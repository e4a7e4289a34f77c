/**
 * Load shedding: a cap on chat requests in flight. Beyond it a new request is answered at once
 * with the overloaded error in the shape of the surface it called (A 503 `server_error`, B 529
 * `overloaded_error`, C 503 `UNAVAILABLE`) and `retry-after: 1`, instead of queueing without bound;
 * requests already accepted (streams included) are untouched. Only POSTs count: listings and
 * health checks are cheap and must keep answering under load.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { surfaceFor } from '../surfaces/registry.ts';
import { generateId } from '../gateway/ids.ts';
import { GatewayError } from '../ir/index.ts';
import { expectsContinue } from './before-body.ts';

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
  // Like every answer, a shed one has its id (in the header its surface's SDK reads too).
  const requestId = generateId('req_');
  const surface = surfaceFor(pathOnly(request.url ?? ''));
  const wire = surface.encodeError(error, requestId);
  const text = JSON.stringify(wire.body);
  response.writeHead(wire.status, {
    ...wire.headers,
    'x-request-id': requestId,
    ...(surface.requestIdHeader === undefined ? {} : { [surface.requestIdHeader]: requestId }),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    // A client waiting for `100 Continue` has not sent its body: the connection cannot go on.
    ...(expectsContinue(request) ? { connection: 'close' } : {}),
  });
  // Otherwise the unread request body is discarded by node:http; the connection stays usable.
  response.end(text);
}

function pathOnly(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}
