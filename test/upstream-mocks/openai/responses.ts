/**
 * `POST /v1/responses`: the response object and its event stream (`event:` + `data:` lines, each event
 * with `sequence_number`), in the field set of `openai` 6.49 (resources/responses/responses.d.ts:
 * `Response`, `ResponseStreamEvent`). Unknown fields are refused the way this API refuses them
 * ("Unknown parameter: 'x'.", code `unknown_parameter`), which differs from chat completions.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from '../kit/server.ts';
import { startSse, writeSse, type SseEvent } from '../kit/sse.ts';
import { mockId } from '../kit/text.ts';
import { splitForStream, type AnswerPlan } from './conversation.ts';
import { invalidRequest, type Refusal } from './errors.ts';

const responseFields: ReadonlySet<string> = new Set(
  (
    'background context_management conversation include input instructions max_output_tokens max_tool_calls metadata model ' +
    'moderation parallel_tool_calls previous_response_id prompt prompt_cache_key prompt_cache_options ' +
    'prompt_cache_retention reasoning safety_identifier service_tier store stream stream_options temperature text ' +
    'tool_choice tools top_logprobs top_p truncation user'
  ).split(' '),
);

export function validateResponsesRequest(
  body: Record<string, unknown>,
  reasoning: boolean,
): Refusal | undefined {
  for (const field of Object.keys(body)) {
    if (!responseFields.has(field))
      return invalidRequest(400, `Unknown parameter: '${field}'.`, field, 'unknown_parameter');
  }
  if (body['stream_options'] !== undefined && body['stream'] !== true) {
    return invalidRequest(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  }
  if (reasoning) {
    for (const field of ['temperature', 'top_p']) {
      const value = body[field];
      if (value !== undefined && value !== null && value !== 1) {
        return invalidRequest(
          400,
          `Unsupported parameter: '${field}' is not supported with this model.`,
          field,
          'unsupported_parameter',
        );
      }
    }
  }
  return undefined;
}

interface ResponseContext {
  plan: AnswerPlan;
  model: string;
  cachedTokens: number;
  body: Record<string, unknown>;
  seed: string;
}

function outputItem(
  context: ResponseContext,
  status: 'in_progress' | 'completed',
  text: string,
): Record<string, unknown> {
  const { toolCall } = context.plan;
  if (toolCall) {
    return {
      id: mockId('fc_', context.seed),
      type: 'function_call',
      status,
      arguments: status === 'completed' ? toolCall.arguments : '',
      call_id: toolCall.id,
      name: toolCall.name,
    };
  }
  const content =
    status === 'completed' ? [{ type: 'output_text', annotations: [], logprobs: [], text }] : [];
  return { id: mockId('msg_', context.seed), type: 'message', status, content, role: 'assistant' };
}

function responseObject(
  context: ResponseContext,
  status: 'in_progress' | 'completed',
): Record<string, unknown> {
  const { plan, body } = context;
  const output = status === 'completed' ? [outputItem(context, 'completed', plan.text)] : [];
  const usage =
    status === 'completed'
      ? {
          input_tokens: plan.promptTokens,
          input_tokens_details: { cached_tokens: context.cachedTokens },
          output_tokens: plan.completionTokens + plan.reasoningTokens,
          output_tokens_details: { reasoning_tokens: plan.reasoningTokens },
          total_tokens: plan.promptTokens + plan.completionTokens + plan.reasoningTokens,
        }
      : null;
  return {
    id: mockId('resp_', context.seed, 48),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body['instructions'] ?? null,
    max_output_tokens: body['max_output_tokens'] ?? null,
    model: context.model,
    output,
    parallel_tool_calls: body['parallel_tool_calls'] ?? true,
    previous_response_id: body['previous_response_id'] ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: body['store'] ?? true,
    temperature: body['temperature'] ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body['tool_choice'] ?? 'auto',
    tools: body['tools'] ?? [],
    top_p: body['top_p'] ?? 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: body['metadata'] ?? {},
  };
}

export function sendResponse(response: ServerResponse, context: ResponseContext): void {
  sendJson(response, 200, responseObject(context, 'completed'));
}

export async function streamResponse(response: ServerResponse, context: ResponseContext): Promise<void> {
  const events: SseEvent[] = [];
  const push = (type: string, fields: Record<string, unknown>): void => {
    events.push({ event: type, data: { type, sequence_number: events.length, ...fields } });
  };
  const { plan } = context;
  const itemId = String(outputItem(context, 'in_progress', '')['id']);
  const at = { output_index: 0 };
  push('response.created', { response: responseObject(context, 'in_progress') });
  push('response.in_progress', { response: responseObject(context, 'in_progress') });
  push('response.output_item.added', { ...at, item: outputItem(context, 'in_progress', '') });
  if (plan.toolCall) {
    for (const piece of splitForStream(plan.toolCall.arguments)) {
      push('response.function_call_arguments.delta', { item_id: itemId, ...at, delta: piece });
    }
    push('response.function_call_arguments.done', {
      item_id: itemId,
      ...at,
      arguments: plan.toolCall.arguments,
    });
  } else {
    const part = { item_id: itemId, ...at, content_index: 0 };
    push('response.content_part.added', {
      ...part,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    });
    for (const piece of splitForStream(plan.text))
      push('response.output_text.delta', { ...part, delta: piece, logprobs: [] });
    push('response.output_text.done', { ...part, text: plan.text, logprobs: [] });
    push('response.content_part.done', {
      ...part,
      part: { type: 'output_text', annotations: [], logprobs: [], text: plan.text },
    });
  }
  push('response.output_item.done', { ...at, item: outputItem(context, 'completed', plan.text) });
  push('response.completed', { response: responseObject(context, 'completed') });
  startSse(response);
  await writeSse(response, events);
}
