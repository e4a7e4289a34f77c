/** Canonical response → the `chat.completion` body an A client expects. */
import type { ChatResponse, Choice, JsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { encodeFinishReason, stopSequenceOf } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { AlphaResponseMessage, AlphaToolCall } from './wire.ts';

export const completionIdPrefix = 'chatcmpl-';

/** Keep the IR id (it may be the upstream's) but make it look like an A id. */
export function completionId(id: string): string {
  return id.startsWith(completionIdPrefix) ? id : `${completionIdPrefix}${id}`;
}

function encodeMessage(choice: Choice, legacyFunctions: boolean): AlphaResponseMessage {
  let text = '';
  const calls: AlphaToolCall[] = [];
  for (const part of choice.content) {
    if (part.type === 'text') text += part.text;
    // Chat completions carry no thought, only its count (`reasoning_tokens`).
    else if (part.type === 'tool-call')
      calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  const message: AlphaResponseMessage = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    refusal: null,
  };
  const first = calls[0];
  // Legacy clients know only one call per turn, without an id: the first call is the answer.
  if (legacyFunctions && first !== undefined) message.function_call = first.function;
  else if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** One choice; `stop_reason` added only when known (no spread: one object, one shape, per choice). */
function encodeChoice(choice: Choice, legacyFunctions: boolean): JsonObject {
  const encoded: JsonObject = {
    index: choice.index,
    message: encodeMessage(choice, legacyFunctions),
    logprobs: null,
    finish_reason: encodeFinishReason(choice.finishReason, legacyFunctions),
  };
  const stopReason = stopSequenceOf(choice.finishReason);
  if (stopReason !== undefined) encoded.stop_reason = stopReason;
  return encoded;
}

export function encodeResponse(response: ChatResponse, context: ResponseContext): JsonObject {
  return {
    id: completionId(response.id),
    object: 'chat.completion',
    created: response.created,
    model: context.model,
    choices: response.choices.map((choice) => encodeChoice(choice, context.legacyFunctions)),
    usage: encodeUsage(response.usage),
  };
}
