/** What answers carry: the `warning`, served-by and cost headers; a whole JSON answer, a stream's start and end. */
import type { ModelEntry } from '../config/catalog.ts';
import type { JsonObject, Usage } from '../ir/index.ts';
import { costUsd, formatUsd } from '../config/cost.ts';
import type { ChatCall } from './chat-call.ts';
import { headerSafe } from './header-value.ts';
import type { ResponseHeaders } from './response-sink.ts';
import type { AttemptRecord, Delivery, StreamOutcome } from './delivery.ts';

export const costHeader = 'x-modelgate-cost-usd';
export const servedByHeader = 'x-modelgate-served-by';
/** On answers the built-in simulator wrote: no real model was called. */
export const simulatedHeader = 'x-modelgate-simulated';
const costTrailer: readonly string[] = [costHeader];

/** Warnings name client fields: bounded so that a body of 10,000 odd fields cannot grow the head past what clients read. */
const maxWarnings = 16;
const maxWarningChars = 240;

/** The headers of an answer served by `entry`: which model served it, whether simulated, and the `warning`s. */
export function answerHeaders(
  entry: ModelEntry,
  notes: readonly string[] | undefined,
  warnings: readonly string[],
  simulated: boolean,
): ResponseHeaders {
  const headers: ResponseHeaders = { [servedByHeader]: entry.name };
  if (simulated) headers[simulatedHeader] = 'true';
  const all = notes === undefined ? warnings : [...notes, ...warnings];
  if (all.length === 0) return headers;
  const shown = all.length <= maxWarnings ? all : all.slice(0, maxWarnings - 1);
  const values = shown.map(warningValue);
  if (shown.length < all.length) values.push(warningValue(`${all.length - shown.length} more warnings`));
  headers.warning = values;
  return headers;
}

/** RFC 7234 warn-code 299 ("miscellaneous persistent warning"); quotes escaped, the text header-safe. */
function warningValue(text: string): string {
  const bounded = text.length <= maxWarningChars ? text : `${text.slice(0, maxWarningChars)}...`;
  return `299 modelgate "${headerSafe(bounded).replace(/["\\]/g, '\\$&')}"`;
}

/** Starts the client's stream with `headers` (`answerHeaders`); the cost follows as a trailer. */
export function startStream(call: ChatCall, headers: ResponseHeaders): void {
  call.sink.startStream(headers, costTrailer);
}

export function endStream(
  call: ChatCall,
  entry: ModelEntry,
  outcome: StreamOutcome,
  records: readonly AttemptRecord[],
): Delivery {
  const cost = outcome.usage === undefined ? undefined : costUsd(outcome.usage, entry.pricing);
  call.sink.end(cost === undefined ? undefined : { [costHeader]: formatUsd(cost) });
  return {
    delivered: true,
    stream: true,
    usage: outcome.usage,
    costUsd: cost,
    completed: outcome.completed,
    error: outcome.error,
    // By choice index, possibly with holes (a cut stream): the reasons that arrived, in order.
    finishReasons: Object.values(outcome.finishReasons),
    deliveredText: outcome.delivered,
    servedBy: entry.name,
    records,
  };
}

/** Sends a whole JSON answer (or its text) with its headers (`answerHeaders`) and its cost. */
export function sendJsonAnswer(
  call: ChatCall,
  entry: ModelEntry,
  body: JsonObject | string,
  usage: Usage,
  finishReasons: readonly string[],
  headers: ResponseHeaders,
  records: readonly AttemptRecord[],
): Delivery {
  const cost = costUsd(usage, entry.pricing);
  headers[costHeader] = formatUsd(cost);
  call.sink.sendJson(200, typeof body === 'string' ? body : JSON.stringify(body), headers);
  return {
    delivered: true,
    stream: false,
    usage,
    costUsd: cost,
    completed: true,
    error: undefined,
    finishReasons,
    servedBy: entry.name,
    records,
  };
}
