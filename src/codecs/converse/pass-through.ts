/**
 * Same-family traffic. Converse names the model only in the path, never in a body, so the client's
 * body goes upstream unchanged and answers come back unchanged. (Converse has no client surface
 * today; this keeps the codec whole for the day it gets one.)
 */
import type { PassThrough, UpstreamRequest, UpstreamTarget } from '../codec.ts';
import type { ChatRequest, JsonObject } from '../../ir/index.ts';
import { sseEvent } from '../../sse/write-sse.ts';
import { upstreamHeaders } from './encode-request.ts';
import { conversePath } from './wire.ts';

function encodeRequest(body: JsonObject, request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  return {
    path: conversePath(target.model, request.stream),
    headers: upstreamHeaders(target.apiKey),
    body: JSON.stringify(body),
    warnings: [],
    call: { model: target.model, stream: request.stream, operation: 'chat' },
  };
}

export const passThrough: PassThrough = {
  encodeRequest,
  rewriteResponse: (body) => body,
  rewriteResponseText: (text) => text,
  forwardStreamMessage: (message) =>
    message.event === undefined ? '' : sseEvent(message.event, message.data),
  // Its events arrive re-framed by the provider: each one is read and re-framed as before.
  streamForwarder: () => ({ forward: () => -1 }),
};
