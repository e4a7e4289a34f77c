/** Family B's wire codec ("beta", messages style): its requests, answers, streams and errors. */
import type { WireCodec } from '../codec.ts';
import { descriptor } from './descriptor.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { createStreamDecoder } from './decode-stream.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { createStreamEncoder } from './encode-stream.ts';
import { decodeErrorBody, encodeError } from './errors.ts';
import { passThrough } from './pass-through.ts';
import { betaFeaturesHeader } from './version-headers.ts';

export const betaWire: WireCodec = {
  id: 'beta',
  descriptor,
  capabilities: {
    multipleCandidates: false,
    requiresMaxOutputTokens: true,
    permissionError: true,
    imageUrls: true,
    imageTokens: 1600,
  },
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
};
