/**
 * The Amazon Bedrock Converse API's wire codec ("converse"): upstream-only (no client surface), the
 * one API every Bedrock model speaks. Its stream is AWS's binary event stream, which the Bedrock
 * provider (`providers/bedrock/`) re-frames as SSE before this codec's decoder reads it.
 */
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

export const converseWire: WireCodec = {
  id: 'converse',
  descriptor,
  capabilities: {
    multipleCandidates: false,
    // Converse takes a request without `maxTokens` (the model's default applies).
    requiresMaxOutputTokens: false,
    permissionError: true,
    // Converse takes image bytes only (`source.bytes`; S3 locations aside).
    imageUrls: false,
    imageTokens: 1600,
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
