/**
 * The chat route's first stage: the request is one a surface serves (route, method), names its
 * key once and with a valid key, and carries the headers its surface requires. Nothing of the
 * body is read; every refusal is thrown as the error the surface encodes.
 */
import type { IncomingMessage } from 'node:http';
import type { SurfaceMatch } from '../surfaces/registry.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { isJsonContentType } from '../http/read-body.ts';
import { GatewayError, invalidRequest } from '../ir/index.ts';
import type { ClientKey, ClientKeys } from '../keys/client-keys.ts';
import { notAllowed, safePath } from './answers.ts';
import { repeatedHeader } from './repeated-header.ts';

/** The key the request authenticates with; throws the refusal otherwise. */
export function authenticate(
  request: IncomingMessage,
  pathname: string,
  search: URLSearchParams,
  match: SurfaceMatch | undefined,
  keys: ClientKeys,
  now: number,
  answerHeaders: ResponseHeaders,
): ClientKey {
  if (match === undefined)
    throw new GatewayError('unknown_route', `No route for ${request.method ?? ''} ${safePath(pathname)}`);
  if (request.method !== 'POST') {
    answerHeaders.allow = 'POST';
    throw notAllowed(request.method, pathname, 'POST');
  }
  const surface = match.codec;
  const repeated = repeatedHeader(request.rawHeaders, surface.credentialHeaders);
  if (repeated !== undefined) throw invalidRequest(`${repeated}: send this header once`, repeated);
  const key = keys.authenticate(surface.readClientKey(request.headers, search), now);
  if (key === undefined) throw new GatewayError('authentication', 'Invalid or missing API key');
  const headerError = surface.checkHeaders(request.headers);
  if (headerError !== undefined) throw headerError;
  if (!isJsonContentType(request.headers['content-type'])) {
    throw new GatewayError('unsupported_media_type', 'Content-Type must be application/json');
  }
  return key;
}
