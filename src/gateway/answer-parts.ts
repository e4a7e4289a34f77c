/** What answers carry: the `warning`, served-by and cost headers; a whole JSON answer, a stream's end. */
import type { ModelEntry } from '../config/catalog.ts';
import type { JsonObject, Usage } from '../ir/index.ts';
import { costUsd, formatUsd } from '../usage/cost.ts';
import type { ChatCall } from './chat-call.ts';
import { headerSafe } from './header-value.ts';
import type { Delivery } from './deliver.ts';
import type { ResponseHeaders } from './response-sink.ts';
import type { StreamOutcome } from './stream-pipeline.ts';

export const costHeader = 'x-modelgate-cost-usd';
export const servedByHeader = 'x-modelgate-served-by';

/** Warnings name client fields: bounded so that a body of 10,000 odd fields cannot grow the head past what clients read. */
const maxWarnings = 16;
const maxWarningChars = 240;

export function warningHeaders(
  notes: readonly string[] | undefined,
  warnings: readonly string[],
): ResponseHeaders {
  const all = notes === undefined ? warnings : [...notes, ...warnings];
  if (all.length === 0) return {};
  const shown = all.length <= maxWarnings ? all : all.slice(0, maxWarnings - 1);
  const values = shown.map(warningValue);
  if (shown.length < all.length) values.push(warningValue(`${all.length - shown.length} more warnings`));
  return { warning: values };
}

/** RFC 7234 warn-code 299 ("miscellaneous persistent warning"); quotes escaped, the text header-safe. */
function warningValue(text: string): string {
  const bounded = text.length <= maxWarningChars ? text : `${text.slice(0, maxWarningChars)}...`;
  return `299 modelgate "${headerSafe(bounded).replace(/["\\]/g, '\\$&')}"`;
}

export function endStream(
  call: ChatCall,
  entry: ModelEntry,
  outcome: StreamOutcome,
  attempts: number,
): Delivery {
  const cost = outcome.usage === undefined ? undefined : costUsd(outcome.usage, entry.pricing);
  call.sink.end(cost === undefined ? undefined : { [costHeader]: formatUsd(cost) });
  return {
    stream: true,
    usage: outcome.usage,
    costUsd: cost,
    completed: outcome.completed,
    error: outcome.error,
    servedBy: entry.name,
    attempts,
  };
}

/** Sends a whole JSON answer with its served-by and cost headers. */
export function sendJsonAnswer(
  call: ChatCall,
  entry: ModelEntry,
  body: JsonObject,
  usage: Usage,
  headers: ResponseHeaders,
  attempts: number,
): Delivery {
  const cost = costUsd(usage, entry.pricing);
  call.sink.headers[servedByHeader] = entry.name;
  call.sink.sendJson(200, JSON.stringify(body), { ...headers, [costHeader]: formatUsd(cost) });
  return {
    stream: false,
    usage,
    costUsd: cost,
    completed: true,
    error: undefined,
    servedBy: entry.name,
    attempts,
  };
}
