/** The canonical response → the beta message a surface client expects (choice 0 only). */
import type { ResponseContext } from '../codec.ts';
import type { AnswerPart, ChatResponse, JsonObject } from '../../ir/index.ts';
import { upstreamToolArguments } from '../shared/validate.ts';
import { encodeStopReason, encodeStopSequence } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { BetaMessage } from './wire.ts';

/** Keeps the IR id but makes sure it carries the family's `msg_` prefix. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

export function encodeResponse(response: ChatResponse, context: ResponseContext): JsonObject {
  const choice = response.choices.find((candidate) => candidate.index === 0) ?? response.choices[0];
  const message: BetaMessage = {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: choice === undefined ? [] : encodeContent(choice.content),
    stop_reason: choice === undefined ? 'end_turn' : encodeStopReason(choice.finishReason),
    stop_sequence: choice === undefined ? null : encodeStopSequence(choice.finishReason),
    usage: encodeUsage(response.usage),
  };
  return message;
}

/** Empty text is dropped: a client sending this history back would get B's "must be non-empty" 400. */
function encodeContent(parts: readonly AnswerPart[]): BetaMessage['content'] {
  const blocks: BetaMessage['content'] = [];
  for (const part of parts) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') {
      // A thought from another family has no B signature: an empty one, as B's own stream starts.
      blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
    } else {
      blocks.push({
        type: 'tool_use',
        id: part.id,
        name: part.name,
        input: upstreamToolArguments(part.arguments),
      });
    }
  }
  return blocks;
}
