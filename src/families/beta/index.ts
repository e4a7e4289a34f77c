/** Family B ("beta", messages style): surface `POST /v1/messages` and upstream codec. */
import type { FamilyCodec } from '../codec.ts';
import { descriptor } from './descriptor.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { createStreamDecoder } from './decode-stream.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeErrorBody, encodeError } from './errors.ts';
import { tokenCounting } from './count-tokens.ts';
import { modelListing } from './model-list.ts';
import { passThrough } from './pass-through.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, matchRoute, readClientKey, resemblesPath } from './surface.ts';
import { betaFeaturesHeader } from './version-headers.ts';

export const betaCodec: FamilyCodec = {
  id: 'beta',
  family: 'beta',
  descriptor,
  capabilities: {
    multipleCandidates: false,
    requiresMaxOutputTokens: true,
    permissionError: true,
    imageUrls: true,
    imageTokens: 1600,
  },
  matchRoute,
  resemblesPath,
  readClientKey,
  credentialHeaders,
  checkHeaders,
  familyHeaders: [betaFeaturesHeader],
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
  tokenCounting,
};
