/** Family B ("beta", messages style): surface `POST /v1/messages` and upstream codec. */
import type { FamilyCodec } from '../surface.ts';
import { descriptor } from '../../codecs/beta/descriptor.ts';
import { decodeRequest } from '../../codecs/beta/decode-request.ts';
import { decodeResponse } from '../../codecs/beta/decode-response.ts';
import { createStreamDecoder } from '../../codecs/beta/decode-stream.ts';
import { encodeRequest } from '../../codecs/beta/encode-request.ts';
import { encodeResponse } from '../../codecs/beta/encode-response.ts';
import { createStreamEncoder } from '../../codecs/beta/encode-stream.ts';
import { decodeErrorBody, encodeError } from '../../codecs/beta/errors.ts';
import { tokenCounting } from './count-tokens.ts';
import { modelListing } from './model-list.ts';
import { passThrough } from '../../codecs/beta/pass-through.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, matchRoute, readClientKey, resemblesPath } from './surface.ts';
import { betaFeaturesHeader } from '../../codecs/beta/version-headers.ts';

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
