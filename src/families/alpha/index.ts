/** Family A ("alpha", chat-completions style) codec. */
import type { FamilyCodec } from '../codec.ts';
import { descriptor } from './descriptor.ts';
import { decodeErrorBody, encodeError } from './errors.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { createStreamDecoder } from './decode-stream.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { modelListing } from './model-list.ts';
import { passThrough } from './pass-through.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, matchRoute, readClientKey, resemblesPath } from './surface.ts';

export const alphaCodec: FamilyCodec = {
  id: 'alpha',
  family: 'alpha',
  descriptor,
  capabilities: {
    multipleCandidates: true,
    requiresMaxOutputTokens: false,
    permissionError: false,
    imageUrls: true,
    imageTokens: 765,
  },
  matchRoute,
  resemblesPath,
  readClientKey,
  credentialHeaders,
  checkHeaders,
  familyHeaders: [],
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeError,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeErrorBody,
  passThrough,
  rateLimitHeaders,
  modelListing,
};
