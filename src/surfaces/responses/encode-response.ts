/** Canonical response → the Responses API's `response` object (non-streamed). */
import type { AnswerPart, ChatResponse } from '../../ir/index.ts';
import type { ResponseContext } from '../../codecs/codec.ts';
import { namespacesOf, type NamespacedCall } from './namespaces.ts';
import { finalStatus, itemId, responseId, responseObject } from './response-object.ts';
import type { FunctionCallItem, ItemStatus, OutputItem, ReasoningItem, ResponseObject } from './wire.ts';

/** A `function_call` item, its name split back when it belongs to a namespace. */
export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  namespaces: ReadonlyMap<string, NamespacedCall> | undefined,
): FunctionCallItem {
  const namespaced = namespaces?.get(name);
  const item: FunctionCallItem = {
    id,
    type: 'function_call',
    status: 'completed',
    call_id: callId,
    name: namespaced?.name ?? name,
    arguments: args,
  };
  if (namespaced !== undefined) item.namespace = namespaced.namespace;
  return item;
}

/** One output item per IR part: a thought → `reasoning`, text → a `message`, a call → a `function_call`. */
export function outputItems(
  parts: readonly AnswerPart[],
  id: string,
  namespaces: ReadonlyMap<string, NamespacedCall> | undefined,
): OutputItem[] {
  return parts.map((part, index): OutputItem =>
    part.type === 'reasoning'
      ? reasoningItem(itemId('rs', id, index), 'completed', part.text)
      : part.type === 'text'
        ? {
            id: itemId('msg', id, index),
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: part.text, annotations: [], logprobs: [] }],
          }
        : functionCallItem(itemId('fc', id, index), part.id, part.name, part.arguments, namespaces),
  );
}

export function reasoningItem(id: string, status: ItemStatus, text: string): ReasoningItem {
  return { id, type: 'reasoning', status, summary: [], content: [{ type: 'reasoning_text', text }] };
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
      output: outputItems(choice?.content ?? [], id, namespacesOf(context.turn?.body)),
      usage: response.usage,
      finishReason: choice?.finishReason,
    },
    context,
  );
  context.turn?.onFinished?.(answer);
  return answer;
}
