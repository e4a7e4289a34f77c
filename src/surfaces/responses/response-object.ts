/**
 * The `response` object both answers share (the JSON body, and the snapshots a stream sends in
 * `response.created` … `response.completed`): ids, status, the request's parameters echoed as
 * the real API echoes them, output items and usage.
 */
import type { FinishReason, JsonObject, JsonValue, Usage } from '../../ir/index.ts';
import { isJsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../../codecs/codec.ts';
import { encodeUsage } from './usage.ts';
import type { IncompleteReason, OutputItem, ResponseError, ResponseObject, ResponseStatus } from './wire.ts';

const responseIdPrefix = 'resp_';

/** The turn's id, or one derived from the upstream's (the surface used without a turn: tests, tools). */
export function responseId(context: ResponseContext, upstreamId: string): string {
  if (context.turn !== undefined) return context.turn.id;
  return upstreamId.startsWith(responseIdPrefix) ? upstreamId : `${responseIdPrefix}${upstreamId}`;
}

/** `msg_…` / `fc_…`: unique within the response, stable for the same answer. */
export function itemId(prefix: 'msg' | 'fc' | 'rs', responseId: string, outputIndex: number): string {
  const stem = responseId.startsWith(responseIdPrefix)
    ? responseId.slice(responseIdPrefix.length)
    : responseId;
  return `${prefix}_${stem}_${outputIndex}`;
}

/** Why the answer stopped short, when it did. */
export function incompleteReason(reason: FinishReason | undefined): IncompleteReason | undefined {
  if (reason?.unified === 'length') return 'max_output_tokens';
  if (reason?.unified === 'content-filter') return 'content_filter';
  return undefined;
}

function field(body: JsonObject, name: string, fallback: JsonValue): JsonValue {
  const value = body[name];
  return value === undefined || value === null ? fallback : value;
}

/** The request's parameters, echoed with the API's defaults where the client sent none. */
function echoed(body: JsonObject): JsonObject {
  const reasoning = isJsonObject(body.reasoning) ? body.reasoning : {};
  return {
    instructions: field(body, 'instructions', null),
    max_output_tokens: field(body, 'max_output_tokens', null),
    metadata: field(body, 'metadata', {}),
    parallel_tool_calls: field(body, 'parallel_tool_calls', true),
    previous_response_id: field(body, 'previous_response_id', null),
    reasoning: { effort: field(reasoning, 'effort', null), summary: field(reasoning, 'summary', null) },
    store: field(body, 'store', true),
    temperature: field(body, 'temperature', 1),
    text: field(body, 'text', { format: { type: 'text' } }),
    tool_choice: field(body, 'tool_choice', 'auto'),
    tools: field(body, 'tools', []),
    top_p: field(body, 'top_p', 1),
    truncation: field(body, 'truncation', 'disabled'),
    user: field(body, 'user', null),
  };
}

export interface ResponseState {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  status: ResponseStatus;
  output: OutputItem[];
  usage: Usage | undefined;
  finishReason?: FinishReason | undefined;
  error?: ResponseError | undefined;
}

export function responseObject(state: ResponseState, context: ResponseContext): ResponseObject {
  const incomplete = state.status === 'incomplete' ? incompleteReason(state.finishReason) : undefined;
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: incomplete === undefined ? null : { reason: incomplete },
    model: context.model,
    output: state.output,
    ...echoed(context.turn?.body ?? {}),
    usage: state.usage === undefined ? null : encodeUsage(state.usage),
  };
}

/** Completed, or incomplete when the output cap or a content filter cut it. */
export function finalStatus(reason: FinishReason | undefined): 'completed' | 'incomplete' {
  return incompleteReason(reason) === undefined ? 'completed' : 'incomplete';
}
