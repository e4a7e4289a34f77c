/** Family A ("alpha", chat-completions style) codec. */
import type { FamilyCodec } from '../surface.ts';
import { descriptor } from '../../codecs/alpha/descriptor.ts';
import { decodeErrorBody, encodeError } from '../../codecs/alpha/errors.ts';
import { decodeRequest } from '../../codecs/alpha/decode-request.ts';
import { decodeResponse } from '../../codecs/alpha/decode-response.ts';
import { createStreamDecoder } from '../../codecs/alpha/decode-stream.ts';
import { encodeRequest } from '../../codecs/alpha/encode-request.ts';
import { encodeResponse } from '../../codecs/alpha/encode-response.ts';
import { createStreamEncoder } from '../../codecs/alpha/encode-stream.ts';
import { modelListing } from './model-list.ts';
import { passThrough } from '../../codecs/alpha/pass-through.ts';
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
