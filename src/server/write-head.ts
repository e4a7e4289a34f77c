/**
 * The one place answers' heads are written. node:http throws on a header value it cannot send
 * (CR/LF, characters beyond Latin-1); a value built from client input must never turn an answer
 * (perhaps already paid for upstream) into a 500. The happy path costs nothing extra: only a
 * refused head is made safe (every value percent-encoded where needed) and written again.
 */
import type { ServerResponse } from 'node:http';
import { headerSafe } from '../gateway/header-value.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';

export function writeHead(response: ServerResponse, status: number, headers: ResponseHeaders): void {
  try {
    response.writeHead(status, headers);
  } catch (error) {
    if (!isInvalidHeader(error)) throw error;
    response.writeHead(status, safeHeaders(headers));
  }
}

function isInvalidHeader(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_INVALID_CHAR' || code === 'ERR_HTTP_INVALID_HEADER_VALUE';
}

function safeHeaders(headers: ResponseHeaders): ResponseHeaders {
  const safe: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    safe[name] = typeof value === 'string' ? headerSafe(value) : value.map(headerSafe);
  }
  return safe;
}
