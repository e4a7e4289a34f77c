/** Family A's wire codec ("alpha", chat-completions style): its requests, answers, streams and errors. */
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

export const alphaWire: WireCodec = {
  id: 'alpha',
  descriptor,
  capabilities: {
    multipleCandidates: true,
    requiresMaxOutputTokens: false,
    permissionError: false,
    imageUrls: true,
    imageTokens: 765,
  },
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
};
