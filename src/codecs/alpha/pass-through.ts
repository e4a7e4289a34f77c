/**
 * Same-family traffic: the client's own body goes upstream with only the model changed (and usage
 * forced on for streams); answers come back with only the model name changed, streams without
 * re-encoding their JSON.
 */
import { isJsonObject, type ChatRequest, type JsonObject, type JsonValue } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import type { PassThrough, ResponseContext, UpstreamRequest, UpstreamTarget } from '../codec.ts';
import { renameOnlyTopLevelField, renameStringField } from '../shared/rename-field.ts';
import { isReasoningModel, upstreamHeaders } from './encode-request.ts';
import { streamForwarder } from './stream-forwarder.ts';
import { chatCompletionsPath } from './wire.ts';

function encodeRequest(body: JsonObject, request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  const outgoing: JsonObject = { ...body, model: target.model };
  // The gateway may have lowered the output cap to the model's maximum: the body follows.
  const cap = request.sampling.maxOutputTokens;
  for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
    const asked = body[field];
    if (cap !== undefined && typeof asked === 'number' && asked > cap) outgoing[field] = cap;
  }
  if (body.stream === true) {
    // The gateway meters every stream; forwardStreamMessage hides the usage chunk if the client did not ask.
    const options = isJsonObject(body.stream_options) ? body.stream_options : {};
    outgoing.stream_options = { ...options, include_usage: true };
  }
  const warnings = isReasoningModel(target) ? fitReasoningModel(outgoing) : [];
  return {
    path: chatCompletionsPath,
    headers: upstreamHeaders(target),
    body: JSON.stringify(outgoing),
    warnings,
    call: { model: target.model, stream: body.stream === true, operation: 'chat' },
  };
}

/**
 * A client body for a reasoning model made one it takes (a client may not know the alias is one):
 * `max_tokens` becomes `max_completion_tokens`, a temperature or top_p other than 1 is dropped.
 */
function fitReasoningModel(outgoing: JsonObject): string[] {
  const warnings: string[] = [];
  const legacyCap = outgoing.max_tokens;
  if (legacyCap !== undefined && legacyCap !== null) {
    delete outgoing.max_tokens;
    outgoing.max_completion_tokens ??= legacyCap;
  }
  if (refusedSampling(outgoing.temperature)) {
    delete outgoing.temperature;
    warnings.push('temperature is not supported by reasoning models (only the default 1) and was dropped');
  }
  if (refusedSampling(outgoing.top_p)) {
    delete outgoing.top_p;
    warnings.push('top_p is not supported by reasoning models (only the default 1) and was dropped');
  }
  return warnings;
}

function refusedSampling(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null && value !== 1;
}

function rewriteResponse(body: JsonObject, context: ResponseContext): JsonObject {
  const usage = withFlatCachedTokens(body.usage);
  return usage === undefined ? { ...body, model: context.model } : { ...body, model: context.model, usage };
}

/** The text as it came, model renamed, unless the flat `cached_tokens` has to be added. */
function rewriteResponseText(text: string, body: JsonObject, context: ResponseContext): string | undefined {
  if (withFlatCachedTokens(body.usage) !== undefined) return undefined;
  return renameOnlyTopLevelField(text, 'model', context.model);
}

/**
 * The spec's flat `usage.cached_tokens`, added beside the SDK's `prompt_tokens_details.cached_tokens`
 * when a cache was hit and the upstream (following the SDK shape) did not send it; undefined when
 * nothing changes.
 */
function withFlatCachedTokens(usage: JsonValue | undefined): JsonObject | undefined {
  if (!isJsonObject(usage) || usage.cached_tokens !== undefined) return undefined;
  const details = usage.prompt_tokens_details;
  const cached = isJsonObject(details) ? details.cached_tokens : undefined;
  if (typeof cached !== 'number' || cached <= 0) return undefined;
  return { ...usage, cached_tokens: cached };
}

/** The usage-only chunk: `choices` empty plus a usage object (the `[]` test is a cheap pre-filter). */
function usageOnlyChunk(data: string): JsonObject | undefined {
  if (!emptyChoices(data)) return undefined;
  try {
    const chunk: unknown = JSON.parse(data);
    return isJsonObject(chunk) &&
      Array.isArray(chunk.choices) &&
      chunk.choices.length === 0 &&
      isJsonObject(chunk.usage)
      ? chunk
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the first `"choices":` is followed by `[]` (spaces allowed): one search per chunk. */
function emptyChoices(data: string): boolean {
  const at = data.indexOf('"choices"');
  if (at === -1) return false;
  let index = skipBlank(data, at + '"choices"'.length);
  if (data.charCodeAt(index) !== 0x3a) return false;
  index = skipBlank(data, index + 1);
  if (data.charCodeAt(index) !== 0x5b) return false;
  return data.charCodeAt(skipBlank(data, index + 1)) === 0x5d;
}

function skipBlank(data: string, from: number): number {
  let index = from;
  while (index < data.length && data.charCodeAt(index) <= 0x20) index++;
  return index;
}

function forwardStreamMessage(message: SseMessage, context: ResponseContext): string {
  const data = message.data;
  if (data === '[DONE]') return 'data: [DONE]\n\n';
  const usageChunk = usageOnlyChunk(data);
  if (usageChunk !== undefined) {
    if (!context.includeUsage) return '';
    // The one usage chunk per stream is re-encoded, to add the spec's flat `cached_tokens`.
    const usage = withFlatCachedTokens(usageChunk.usage);
    if (usage !== undefined)
      return `data: ${JSON.stringify({ ...usageChunk, model: context.model, usage })}\n\n`;
  }
  // Every chunk names the model at the top level; the upstream may answer a dated id of its own.
  return `data: ${renameStringField(data, 'model', 1, context.model)}\n\n`;
}

export const passThrough: PassThrough = {
  encodeRequest,
  rewriteResponse,
  rewriteResponseText,
  forwardStreamMessage,
  streamForwarder,
};
