/**
 * Same-family traffic: the client's own body goes upstream untouched (only the path's model and the
 * credential change), and the upstream's answer goes back as sent: C clients see the upstream's
 * `modelVersion`, exactly as with the real family.
 */
import type { JsonObject } from '../../ir/index.ts';
import { sseData } from '../../sse/write-sse.ts';
import type { PassThrough } from '../codec.ts';
import { upstreamHeaders, upstreamPath } from './encode-request.ts';

export const passThrough: PassThrough = {
  encodeRequest(body, request, target) {
    return {
      path: upstreamPath(target.model, request.stream),
      headers: upstreamHeaders(target),
      body: JSON.stringify(body),
      warnings: [],
    };
  },
  rewriteResponse(body: JsonObject): JsonObject {
    return body;
  },
  forwardStreamMessage(message) {
    return sseData(message.data);
  },
};
