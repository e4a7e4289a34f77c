/**
 * Beta client → beta upstream: the client's own bytes go on with only the model and credentials
 * changed, so everything the IR cannot carry (thinking blocks and their signatures, documents,
 * server tools, beta-only knobs) survives. The client's version date and feature flags go along.
 */
import type {
  HeaderMap,
  PassThrough,
  ResponseContext,
  StreamForwarder,
  UpstreamRequest,
  UpstreamTarget,
} from '../codec.ts';
import { isJsonObject, type ChatRequest, type JsonObject, type JsonValue } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import { plainEventEnd } from '../../sse/scan-events.ts';
import { sseData, sseEvent } from '../../sse/write-sse.ts';
import { minThinkingBudget } from '../shared/reasoning-budget.ts';
import { renameOnlyTopLevelField, renameStringField } from '../shared/rename-field.ts';
import { startsAt } from '../shared/scan-event.ts';
import { checkCacheBreakpoints, upstreamHeaders } from './encode-request.ts';
import { betaFeatures, betaFeaturesHeader, clientVersion, versionHeader } from './version-headers.ts';
import { messagesPath } from './wire.ts';

function encodeRequest(
  body: JsonObject,
  request: ChatRequest,
  target: UpstreamTarget,
  clientHeaders: HeaderMap = {},
): UpstreamRequest {
  // The one rule checked before the bytes go on: a 5th breakpoint is a clear 400 here, not upstream.
  checkCacheBreakpoints(countRawBreakpoints(body));
  const headers = upstreamHeaders(target.apiKey);
  // The client's own (validated) version date goes on: same-family traffic keeps its semantics.
  // Sent as the spec's header whichever name the client used (the vendor's `anthropic-version` too).
  const version = clientVersion(clientHeaders);
  if (version !== undefined) headers[versionHeader] = version.value;
  // So are the feature flags it asks for (checked by the surface: names only).
  const features = clientHeaders[betaFeaturesHeader];
  const flags = features === undefined ? undefined : betaFeatures(features);
  if (flags !== undefined) headers[betaFeaturesHeader] = flags;
  const cap = request.sampling.maxOutputTokens;
  const warnings: string[] = [];
  return {
    path: messagesPath,
    headers,
    // Spreading keeps the client's key order; `model` is replaced in place, and so is an output
    // cap the gateway lowered to the model's maximum (with a thinking budget that no longer fits).
    body: JSON.stringify(
      cap !== undefined && cappedAbove(body.max_tokens, cap)
        ? { ...body, model: target.model, max_tokens: cap, ...fitThinking(body.thinking, cap, warnings) }
        : { ...body, model: target.model },
    ),
    warnings,
    call: { model: target.model, stream: body.stream === true, operation: 'chat' },
  };
}

/**
 * B wants `budget_tokens < max_tokens`: a budget the lowered cap no longer leaves room for is
 * lowered below it (Claude Code asks 31999 of 32000), or thinking is turned off when the cap is too
 * small to think at all. Only the `thinking` key, and only when it must change.
 */
function fitThinking(thinking: JsonValue | undefined, cap: number, warnings: string[]): JsonObject {
  if (!isJsonObject(thinking) || thinking.type !== 'enabled') return {};
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < cap) return {};
  if (cap <= minThinkingBudget) {
    warnings.push(`thinking turned off: the lowered max_tokens ${cap} leaves no room for it`);
    return { thinking: { type: 'disabled' } };
  }
  warnings.push(`thinking.budget_tokens lowered from ${budget} to ${cap - 1}, below the lowered max_tokens`);
  return { thinking: { ...thinking, budget_tokens: cap - 1 } };
}

/** The client's cap is above the (lowered) one the request carries. */
function cappedAbove(asked: JsonValue | undefined, cap: number | undefined): boolean {
  return cap !== undefined && typeof asked === 'number' && asked > cap;
}

/** `cache_control` markers in a client body: top level, system blocks, tools, message blocks, tool-result content. */
function countRawBreakpoints(body: JsonObject): number {
  let count = hasMarker(body) ? 1 : 0;
  const countBlocks = (value: JsonValue | undefined): void => {
    if (!Array.isArray(value)) return;
    for (const block of value) {
      if (!isJsonObject(block)) continue;
      if (hasMarker(block)) count++;
      if (block.type === 'tool_result') countBlocks(block.content);
    }
  };
  countBlocks(body.system);
  countBlocks(body.tools);
  if (Array.isArray(body.messages))
    for (const message of body.messages) if (isJsonObject(message)) countBlocks(message.content);
  return count;
}

function hasMarker(object: JsonObject): boolean {
  return object.cache_control !== undefined && object.cache_control !== null;
}

function rewriteResponse(body: JsonObject, context: ResponseContext): JsonObject {
  return { ...body, model: context.model };
}

/** The text as it came, with the model renamed. */
function rewriteResponseText(text: string, _body: JsonObject, context: ResponseContext): string | undefined {
  return renameOnlyTopLevelField(text, 'model', context.model);
}

/**
 * Re-frames one SSE message; only `message_start` names the model (`message.model`), so only it is
 * rewritten, whatever id the upstream answered with.
 */
function forwardStreamMessage(message: SseMessage, context: ResponseContext): string {
  let data = message.data;
  if (message.event === 'message_start') data = renameStringField(data, 'model', 2, context.model);
  // Multi-line data keeps one `data:` line per line so the client's parser joins them back.
  if (data.includes('\n')) data = data.replaceAll('\n', '\ndata: ');
  return message.event === undefined ? sseData(data) : sseEvent(message.event, data);
}

/**
 * Content-block events and `ping` name no model and carry no usage: passed on as they came. Every
 * other event is read (`message_start`, `message_delta`, `message_stop`, `error`, and any event
 * type added later or sent without its `event:` line).
 */
const forwarder: StreamForwarder = {
  forward(events, start, write) {
    if (!startsAt(events, 'event: content_block_', start) && !startsAt(events, 'event: ping', start))
      return -1;
    const end = plainEventEnd(events, start);
    if (end !== -1) write(events.slice(start, end));
    return end;
  },
};

export const passThrough: PassThrough = {
  encodeRequest,
  rewriteResponse,
  rewriteResponseText,
  forwardStreamMessage,
  streamForwarder: () => forwarder,
};
