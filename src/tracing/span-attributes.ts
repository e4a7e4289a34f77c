/**
 * Span attributes: the OpenTelemetry GenAI conventions' names (`gen_ai.*`, `error.type`,
 * `http.response.status_code`) and modelgate's own (`modelgate.*`: key id, surface, attempt kind,
 * cost). Pure: built from what the request's timeline and delivery say. Message content only
 * through `contentAttributes`, which the tracer calls only when the operator opted in.
 */
import type { RequestContext } from '../usage/request-context.ts';
import type { AttemptRecord, Delivery } from '../gateway/delivery.ts';
import { isJsonObject, type Usage } from '../ir/index.ts';
import { attemptKind } from '../metrics/gateway-metrics.ts';
import { errorType } from '../metrics/labels.ts';
import type { RequestEnd } from './tracer.ts';

export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/** Content put on a span is cut to this many characters. */
const maxContentChars = 16_384;

export function serverSpanAttributes(context: RequestContext, end: RequestEnd): SpanAttributes {
  const attributes: SpanAttributes = {
    'http.response.status_code': end.status,
    'modelgate.attempts': context.timeline.attempts.length,
  };
  if (context.model !== undefined) attributes['gen_ai.request.model'] = context.model;
  if (end.keyId !== undefined) attributes['modelgate.key_id'] = end.keyId;
  if (end.errorKind !== undefined) attributes['error.type'] = errorType(end.errorKind);
  let answering: AttemptRecord | undefined;
  for (const { record } of context.timeline.attempts) if (record.answered) answering = record;
  if (answering !== undefined) attributes['gen_ai.provider.name'] = answering.family;
  const delivery = end.delivery;
  if (delivery !== undefined) {
    attributes['gen_ai.response.model'] = delivery.servedBy;
    Object.assign(attributes, answerAttributes(delivery));
  }
  return attributes;
}

/** One upstream call; `delivery` only on the call that carries the request's usage. */
export function attemptSpanAttributes(
  record: AttemptRecord,
  context: RequestContext,
  index: number,
  delivery: Delivery | undefined,
): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (index >= 0) attributes['modelgate.attempt'] = attemptKind(context.timeline, index, context.model);
  if (record.status > 0) attributes['http.response.status_code'] = record.status;
  if (record.error !== undefined) attributes['error.type'] = errorType(record.error);
  if (delivery !== undefined) {
    attributes['gen_ai.response.model'] = record.upstreamModel;
    Object.assign(attributes, answerAttributes(delivery));
  }
  return attributes;
}

function answerAttributes(delivery: Delivery): SpanAttributes {
  const attributes = usageAttributes(delivery.usage, delivery.costUsd);
  if (delivery.finishReasons.length > 0)
    attributes['gen_ai.response.finish_reasons'] = [...delivery.finishReasons];
  return attributes;
}

function usageAttributes(usage: Usage | undefined, cost: number | undefined): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (cost !== undefined) attributes['modelgate.cost_usd'] = cost;
  if (usage === undefined) return attributes;
  attributes['gen_ai.usage.input_tokens'] = usage.inputTokens;
  attributes['gen_ai.usage.output_tokens'] = usage.outputTokens;
  attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens;
  attributes['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined)
    attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
  return attributes;
}

/**
 * The client's messages and system instructions as it sent them (any surface's field names),
 * as JSON cut to `maxContentChars`. Opt-in only (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).
 */
export function contentAttributes(body: unknown): SpanAttributes {
  if (!isJsonObject(body)) return {};
  const attributes: SpanAttributes = {};
  const messages = body.messages ?? body.contents ?? body.input;
  const system = body.system ?? body.systemInstruction ?? body.system_instruction ?? body.instructions;
  if (messages !== undefined)
    attributes['gen_ai.input.messages'] = JSON.stringify(messages).slice(0, maxContentChars);
  if (system !== undefined)
    attributes['gen_ai.system_instructions'] = JSON.stringify(system).slice(0, maxContentChars);
  return attributes;
}
