/**
 * The answer to a valid chat completion request, JSON or stream, in OpenAI's exact field set and order.
 * Shapes modelled on recorded real traffic: the chunk sequence of a gpt-4.1-nano tool call in
 * alexbrowng/aiomodels tests/openai/chat_completion_chunks/get_weather.py (role chunk, tool call with
 * id/name and empty arguments, argument deltas, finish chunk, all with `usage: null`), and the
 * `ChatCompletion`/`ChatCompletionChunk` types of `openai` 6.49. Azure adds its filter results through
 * `ChatAnswerExtras`, so both mocks share this one answering path.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from '../kit/server.ts';
import { startSse, writeSse, type SseEvent } from '../kit/sse.ts';
import { mockId } from '../kit/text.ts';
import { splitForStream, type AnswerPlan } from './conversation.ts';

export interface ChatAnswerExtras {
  /** Azure: `prompt_filter_results` in the JSON answer and a preamble chunk first in streams. */
  promptFilterResults?: unknown[];
  /** Azure: `content_filter_results` on each choice. */
  choiceFilterResults?: (filtered: boolean) => Record<string, unknown>;
  /** Azure: the output was filtered, so the answer ends with finish_reason `content_filter`. */
  outputFiltered?: boolean;
  /** OpenAI sends `service_tier`; Azure does not. */
  serviceTier?: string | null;
}

export interface ChatAnswerContext {
  plan: AnswerPlan;
  /** The model id the answer names. */
  model: string;
  cachedTokens: number;
  extras: ChatAnswerExtras;
}

const systemFingerprint = 'fp_mock0a1b2c3';

function usageOf(context: ChatAnswerContext): Record<string, unknown> {
  const { plan } = context;
  const completion = plan.completionTokens + plan.reasoningTokens;
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: completion,
    total_tokens: plan.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: context.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: plan.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(context: ChatAnswerContext): string {
  if (context.extras.outputFiltered) return 'content_filter';
  return context.plan.toolCall ? 'tool_calls' : 'stop';
}

function envelope(
  context: ChatAnswerContext,
  id: string,
  created: number,
  object: string,
): Record<string, unknown> {
  return {
    id,
    object,
    created,
    model: context.model,
    ...(context.extras.serviceTier === undefined ? {} : { service_tier: context.extras.serviceTier }),
    system_fingerprint: systemFingerprint,
  };
}

function filterFields(context: ChatAnswerContext, filtered: boolean): Record<string, unknown> {
  const results = context.extras.choiceFilterResults;
  return results ? { content_filter_results: results(filtered) } : {};
}

export function sendChatCompletion(response: ServerResponse, context: ChatAnswerContext, seed: string): void {
  const { plan, extras } = context;
  const id = mockId('chatcmpl-', seed, 29);
  const toolCall = extras.outputFiltered ? undefined : plan.toolCall;
  const message = {
    role: 'assistant',
    content: toolCall || extras.outputFiltered ? null : plan.text,
    ...(toolCall
      ? {
          tool_calls: [
            {
              id: toolCall.id,
              type: 'function',
              function: { name: toolCall.name, arguments: toolCall.arguments },
            },
          ],
        }
      : {}),
    refusal: null,
    annotations: [],
  };
  const choice = {
    ...filterFields(context, extras.outputFiltered === true),
    finish_reason: finishReason(context),
    index: 0,
    logprobs: null,
    message,
  };
  const head = envelope(context, id, Math.floor(Date.now() / 1000), 'chat.completion');
  sendJson(response, 200, {
    id: head['id'],
    object: head['object'],
    created: head['created'],
    model: head['model'],
    choices: [choice],
    usage: usageOf(context),
    ...(extras.promptFilterResults ? { prompt_filter_results: extras.promptFilterResults } : {}),
    ...(head['service_tier'] === undefined ? {} : { service_tier: head['service_tier'] }),
    system_fingerprint: head['system_fingerprint'],
  });
}

export async function streamChatCompletion(
  response: ServerResponse,
  context: ChatAnswerContext,
  seed: string,
  includeUsage: boolean,
): Promise<void> {
  const { plan, extras } = context;
  const head = envelope(
    context,
    mockId('chatcmpl-', seed, 29),
    Math.floor(Date.now() / 1000),
    'chat.completion.chunk',
  );
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null, filtered = false): SseEvent => ({
    data: {
      ...head,
      choices: [
        { index: 0, delta, ...filterFields(context, filtered), logprobs: null, finish_reason: finish },
      ],
      ...usageField,
    },
  });
  const events: SseEvent[] = [];
  if (extras.promptFilterResults) {
    // Azure's first chunk carries only the prompt's filter verdict, with empty ids.
    events.push({
      data: {
        choices: [],
        created: 0,
        id: '',
        model: '',
        object: '',
        prompt_filter_results: extras.promptFilterResults,
      },
    });
  }
  const toolCall = extras.outputFiltered ? undefined : plan.toolCall;
  if (toolCall) {
    events.push(chunk({ role: 'assistant', content: null, refusal: null }, null));
    events.push(
      chunk(
        {
          tool_calls: [
            { index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } },
          ],
        },
        null,
      ),
    );
    for (const piece of splitForStream(toolCall.arguments)) {
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    }
  } else {
    events.push(chunk({ role: 'assistant', content: '', refusal: null }, null));
    if (!extras.outputFiltered) {
      for (const piece of splitForStream(plan.text)) events.push(chunk({ content: piece }, null));
    }
  }
  events.push(chunk({}, finishReason(context), extras.outputFiltered === true));
  if (includeUsage) events.push({ data: { ...head, choices: [], usage: usageOf(context) } });
  events.push({ data: '[DONE]' });
  startSse(response);
  await writeSse(response, events);
}
