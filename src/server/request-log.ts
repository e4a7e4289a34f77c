/**
 * What the operator reads in the log about chat requests: one `warn` line per failed upstream call
 * (the upstream's status and its own words, scrubbed) and the fields of a chat request's `request`
 * line (model, key, deployment, upstream status, tokens, cost). Keys, hosts and URLs never appear:
 * the detail went through the deployment's scrubber, and the logger redacts every secret anyway.
 */
import type { AttemptRecord } from '../gateway/delivery.ts';
import type { Logger } from '../log/logger.ts';
import type { RequestContext } from '../usage/request-context.ts';
import { safePath } from './answers.ts';
import type { ChatEnding } from './chat-end.ts';
import type { Exchange } from './exchange.ts';

/** One line for an upstream call that gave no answer (a 401 from a key-less upstream, a 5xx, a timeout). */
export function logFailedAttempt(logger: Logger, requestId: string, record: AttemptRecord): void {
  if (record.error === undefined || !logger.enabled('warn')) return;
  logger.warn('upstream call failed', {
    requestId,
    family: record.family,
    deployment: record.deployment,
    model: record.model,
    upstreamModel: record.upstreamModel,
    // 0: no answer at all (connect failure, timeout).
    status: record.status,
    error: record.error,
    ...(record.detail === undefined || record.detail === '' ? {} : { detail: record.detail }),
  });
}

/**
 * The fields of a request's `request` line, in the line's order: one object filled in place (an
 * object spread per part cost an object each, on every request).
 */
export function requestLogFields(exchange: Exchange): Record<string, unknown> {
  const { request, response, context } = exchange;
  const fields: Record<string, unknown> = {
    requestId: exchange.requestId,
    method: request.method,
    path: safePath(exchange.pathname),
    status: response.statusCode,
    ms: Math.round(exchange.timeline.elapsed() * 100) / 100,
  };
  if (context?.traceId !== undefined) fields.traceId = context.traceId;
  return chatLogFields(context, exchange.ending, fields);
}

/**
 * The chat-specific fields of a request's log line, added to `fields` (the line's own object: no
 * second object spread into it per request); none for other routes.
 */
export function chatLogFields(
  context: RequestContext | undefined,
  ending: ChatEnding | undefined,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  if (context === undefined) return fields;
  const model = ending?.delivery?.servedBy ?? context.model;
  if (model !== undefined) fields.model = model;
  if (ending?.keyId !== undefined) fields.keyId = ending.keyId;
  // The call that answered, else the last one tried.
  const attempts = context.timeline.attempts;
  let last: AttemptRecord | undefined;
  for (const { record } of attempts) if (last?.answered !== true) last = record;
  if (last !== undefined) {
    fields.deployment = last.deployment;
    fields.upstreamStatus = last.status;
    if (attempts.length > 1) fields.attempts = attempts.length;
  }
  const delivery = ending?.delivery;
  if (delivery?.usage !== undefined) {
    fields.inputTokens = delivery.usage.inputTokens;
    fields.outputTokens = delivery.usage.outputTokens;
    fields.cachedTokens = delivery.usage.cacheReadTokens;
  }
  if (delivery?.costUsd !== undefined) fields.costUsd = delivery.costUsd;
  if (ending?.errorKind !== undefined) fields.error = ending.errorKind;
  return fields;
}
