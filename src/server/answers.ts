/** Writing whole JSON answers and errors in the surface's shape; paths made safe to echo. */
import type { ServerResponse } from 'node:http';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError } from '../ir/index.ts';
import type { Logger } from '../log/logger.ts';
import type { RequestTimeline } from '../usage/request-timeline.ts';
import { writeHead } from './write-head.ts';

/** Sends a JSON answer with the request's common headers. */
export type Answer = (status: number, body: unknown, headers?: ResponseHeaders) => void;

export function sendJson(
  response: ServerResponse,
  status: number,
  headers: ResponseHeaders,
  body: unknown,
): void {
  const text = JSON.stringify(body);
  writeHead(response, status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

export function sendError(
  response: ServerResponse,
  surface: SurfaceCodec,
  error: unknown,
  baseHeaders: ResponseHeaders,
  requestId: string,
  logger: Logger,
  timeline: RequestTimeline,
): void {
  const gatewayError =
    error instanceof GatewayError ? error : new GatewayError('internal', 'internal error', { cause: error });
  if (gatewayError.kind === 'internal' || gatewayError.cause !== undefined) {
    logger.warn('request failed', {
      requestId,
      kind: gatewayError.kind,
      cause: describeCause(gatewayError.cause),
    });
  }
  if (response.headersSent) {
    response.end();
    return;
  }
  const wire = surface.encodeError(gatewayError, requestId);
  timeline.answerStarting(baseHeaders);
  const headers: ResponseHeaders = { ...baseHeaders, ...wire.headers };
  if (gatewayError.kind === 'payload_too_large') headers.connection = 'close';
  sendJson(response, wire.status, headers, wire.body);
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return typeof cause === 'string' ? cause : 'non-error cause';
}

export function pathOf(url: string | undefined): string {
  const value = url ?? '';
  const queryStart = value.indexOf('?');
  return safePath(queryStart === -1 ? value : value.slice(0, queryStart));
}

/** Paths echoed in messages and logs: bounded, printable (no CRLF games). */
export function safePath(pathname: string): string {
  const bounded = pathname.length > 200 ? pathname.slice(0, 200) : pathname;
  // Tested first: every request's log line has a path, and almost none needs a replacement.
  return unprintable.test(bounded) ? bounded.replace(unprintableAll, '?') : bounded;
}

const unprintable = /[^\x21-\x7e]/;
const unprintableAll = /[^\x21-\x7e]/g;

export function notAllowed(method: string | undefined, pathname: string, allow: string): GatewayError {
  return new GatewayError(
    'method_not_allowed',
    `${method ?? ''} is not allowed on ${safePath(pathname)}: use ${allow}`,
  );
}

/** 405 with `Allow`, in `surface`'s error shape. */
export function methodNotAllowed(
  surface: SurfaceCodec,
  method: string | undefined,
  pathname: string,
  allow: string,
  answer: (status: number, body: unknown, headers: ResponseHeaders) => void,
  headers: ResponseHeaders,
  requestId?: string,
): void {
  const wire = surface.encodeError(notAllowed(method, pathname, allow), requestId);
  answer(wire.status, wire.body, { ...headers, ...wire.headers, allow });
}
