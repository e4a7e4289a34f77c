/** Family C ("gamma", generate-content style) codec. */
import type { FamilyCodec } from '../surface.ts';
import { descriptor } from '../../codecs/gamma/descriptor.ts';
import { decodeRequest } from '../../codecs/gamma/decode-request.ts';
import { decodeResponse } from '../../codecs/gamma/decode-response.ts';
import { createStreamDecoder } from '../../codecs/gamma/decode-stream.ts';
import { encodeRequest } from '../../codecs/gamma/encode-request.ts';
import { encodeResponse } from '../../codecs/gamma/encode-response.ts';
import { createStreamEncoder } from '../../codecs/gamma/encode-stream.ts';
import { decodeErrorBody, encodeError } from '../../codecs/gamma/errors.ts';
import { tokenCounting } from './count-tokens.ts';
import { modelListing } from './model-list.ts';
import { passThrough } from '../../codecs/gamma/pass-through.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, matchRoute, readClientKey, resemblesPath } from './surface.ts';

export const gammaCodec: FamilyCodec = {
  id: 'gamma',
  family: 'gamma',
  descriptor,
  capabilities: {
    multipleCandidates: true,
    requiresMaxOutputTokens: false,
    permissionError: true,
    imageUrls: false,
    imageTokens: 258,
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
  tokenCounting,
};
