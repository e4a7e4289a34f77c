/**
 * The Responses API (`POST /v1/responses`), Family A's second surface. A surface only: requests
 * are translated to the canonical request and reach every family's upstream through its chat
 * codec; errors, the client key and rate-limit headers are Family A's.
 */
import type { SurfaceCodec } from '../surface.ts';
import { encodeError } from '../../codecs/alpha/errors.ts';
import { rateLimitHeaders } from '../alpha/rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, readClientKey } from '../alpha/surface.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { routes, unknownPaths } from './surface.ts';

export const responsesSurface: SurfaceCodec = {
  id: 'responses',
  family: 'alpha',
  capabilities: { permissionError: false },
  routes,
  unknownPaths,
  credentialHeaders,
  readClientKey,
  checkHeaders,
  familyHeaders: [],
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeError,
  rateLimitHeaders,
};
