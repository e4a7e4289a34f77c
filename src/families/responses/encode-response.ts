/** Canonical response → the Responses API's `response` object (non-streamed). */
import type { AssistantPart, ChatResponse } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { finalStatus, itemId, responseId, responseObject } from './response-object.ts';
import type { OutputItem, ResponseObject } from './wire.ts';

/** One output item per IR part: text → a `message`, a call → a `function_call`. */
export function outputItems(parts: readonly AssistantPart[], id: string): OutputItem[] {
  return parts.map((part, index): OutputItem =>
    part.type === 'text'
      ? {
          id: itemId('msg', id, index),
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: part.text, annotations: [], logprobs: [] }],
        }
      : {
          id: itemId('fc', id, index),
          type: 'function_call',
          status: 'completed',
          call_id: part.id,
          name: part.name,
          arguments: part.arguments,
        },
  );
}

export function encodeResponse(response: ChatResponse, context: ResponseContext): ResponseObject {
  const id = responseId(context, response.id);
  // The Responses API has no candidates: the surface never asks for more than one.
  const choice = response.choices[0];
  const answer = responseObject(
    {
      id,
      createdAt: context.turn?.createdAt ?? response.created,
      status: finalStatus(choice?.finishReason),
      output: outputItems(choice?.content ?? [], id),
      usage: response.usage,
      finishReason: choice?.finishReason,
    },
    context,
  );
  context.turn?.onFinished?.(answer);
  return answer;
}
