/**
 * Same-family traffic: the client's own body goes upstream untouched (only the path's model, the
 * credential, a lowered output cap and a missing content role change), and the upstream's answer goes back as sent except
 * `modelVersion`, which names the model the client asked for (as translated answers do).
 */
import { isJsonObject, type JsonObject } from '../../ir/index.ts';
import { plainEventEnd } from '../../sse/scan-events.ts';
import { sseData } from '../../sse/write-sse.ts';
import { renameStringField } from '../shared/rename-field.ts';
import { hasField } from '../shared/scan-event.ts';
import type { PassThrough } from '../codec.ts';
import { upstreamHeaders, upstreamPath } from './encode-request.ts';

/**
 * The body with its output cap lowered to `cap` when the gateway lowered it, in the spelling the
 * client used (the family takes `generationConfig.maxOutputTokens` and `generation_config.max_output_tokens`;
 * the decoder refused a body with both spellings of one field).
 */
function withOutputCap(body: JsonObject, cap: number | undefined): JsonObject {
  if (cap === undefined) return body;
  for (const configKey of ['generationConfig', 'generation_config']) {
    const config = body[configKey];
    if (!isJsonObject(config)) continue;
    for (const capKey of ['maxOutputTokens', 'max_output_tokens']) {
      const asked = config[capKey];
      if (typeof asked === 'number' && asked > cap)
        return { ...body, [configKey]: { ...config, [capKey]: cap } };
    }
  }
  return body;
}

/**
 * Every content with its role: the family's API reads a missing one as `user`, but Vertex AI
 * refuses it ("Please use a valid role"), so the gateway says it for the client.
 */
function withRoles(body: JsonObject): JsonObject {
  const contents = body.contents;
  if (
    !Array.isArray(contents) ||
    contents.every((content) => !isJsonObject(content) || content.role !== undefined)
  )
    return body;
  return {
    ...body,
    contents: contents.map((content) =>
      isJsonObject(content) && content.role === undefined ? { role: 'user', ...content } : content,
    ),
  };
}

export const passThrough: PassThrough = {
  encodeRequest(body, request, target) {
    return {
      path: upstreamPath(target.model, request.stream),
      headers: upstreamHeaders(target),
      body: JSON.stringify(withRoles(withOutputCap(body, request.sampling.maxOutputTokens))),
      warnings: [],
      call: { model: target.model, stream: request.stream, operation: 'chat' },
    };
  },
  rewriteResponse(body: JsonObject, context): JsonObject {
    return typeof body.modelVersion === 'string' ? { ...body, modelVersion: context.model } : body;
  },
  forwardStreamMessage(message, context) {
    // Every chunk may carry `modelVersion` (top level): the upstream's own, often dated, id.
    return sseData(renameStringField(message.data, 'modelVersion', 1, context.model));
  },
  // Each chunk renamed on its own (a function call's arguments may hold a `modelVersion` key):
  // those that carry usage, a finish reason (or a blocked prompt's feedback) or an error are read.
  streamForwarder: (context) => ({
    forward(events, start, write) {
      const end = plainEventEnd(events, start);
      if (end === -1) return -1;
      const event = events.slice(start, end);
      if (
        hasField(event, '"usageMetadata"', true) ||
        hasField(event, '"finishReason"', true) ||
        hasField(event, '"error"') ||
        hasField(event, '"promptFeedback"')
      )
        return -1;
      write(renameStringField(event, 'modelVersion', 1, context.model, event.indexOf('{')));
      return end;
    },
  }),
};
