/**
 * One validated chat completion, from parsed body to answer: shared by the OpenAI mock and the Azure
 * mock (which resolves the model from its deployment and adds its filter extras).
 */
import type { ServerResponse } from 'node:http';
import type { PromptPrefixCache } from '../kit/text.ts';
import { sendChatCompletion, streamChatCompletion, type ChatAnswerExtras } from './chat-answer.ts';
import { planAnswer } from './conversation.ts';
import { sendOpenAIError } from './errors.ts';
import { isReasoningModel } from './models.ts';
import { validateChatRequest } from './validate-chat.ts';

export interface ChatRouteOptions {
  vendor: string;
  /** The model whose rules apply (Azure: the deployment's underlying model). */
  underlyingModel: string;
  /** The model id the answer names. */
  answerModel: string;
  cache: PromptPrefixCache;
  extras?: ChatAnswerExtras;
  /** Body fields this vendor accepts beyond OpenAI's (Azure: `data_sources`, `user_security_context`). */
  extraFields?: ReadonlySet<string>;
}

export async function answerChatCompletion(
  body: Record<string, unknown>,
  response: ServerResponse,
  options: ChatRouteOptions,
): Promise<void> {
  const reasoning = isReasoningModel(options.underlyingModel);
  const refusal = validateChatRequest(body, reasoning, options.extraFields);
  if (refusal) {
    sendOpenAIError(response, refusal);
    return;
  }
  const promptText = JSON.stringify([body['messages'], body['tools'] ?? null]);
  const plan = planAnswer({
    vendor: options.vendor,
    turns: body['messages'],
    tools: body['tools'],
    toolChoice: body['tool_choice'],
    reasoning,
    promptText,
  });
  const context = {
    plan,
    model: options.answerModel,
    cachedTokens: options.cache.lookupAndStore(promptText),
    extras: options.extras ?? {},
  };
  if (body['stream'] === true) {
    const streamOptions = body['stream_options'];
    const includeUsage =
      typeof streamOptions === 'object' && streamOptions !== null && 'include_usage' in streamOptions
        ? streamOptions.include_usage === true
        : false;
    await streamChatCompletion(response, context, promptText, includeUsage);
    return;
  }
  sendChatCompletion(response, context, promptText);
}
