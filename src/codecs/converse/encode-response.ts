/** The canonical response → a Converse answer (`output.message`, `stopReason`, `usage`, `metrics`). */
import type { ResponseContext } from '../codec.ts';
import type { AnswerPart, ChatResponse, JsonObject } from '../../ir/index.ts';
import { upstreamToolArguments } from '../shared/validate.ts';
import { encodeStopReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';

export function encodeContent(parts: readonly AnswerPart[]): JsonObject[] {
  return parts.map((part) => {
    if (part.type === 'text') return { text: part.text };
    if (part.type === 'reasoning') {
      const reasoningText =
        part.signature === undefined ? { text: part.text } : { text: part.text, signature: part.signature };
      return { reasoningContent: { reasoningText } };
    }
    return { toolUse: { toolUseId: part.id, name: part.name, input: upstreamToolArguments(part.arguments) } };
  });
}

export function encodeResponse(response: ChatResponse, _context: ResponseContext): JsonObject {
  const choice = response.choices[0];
  return {
    output: { message: { role: 'assistant', content: encodeContent(choice?.content ?? []) } },
    stopReason: encodeStopReason(choice?.finishReason ?? { unified: 'stop' }),
    usage: { ...encodeUsage(response.usage) },
    // The gateway does not time the model apart from its own work; Converse requires the field.
    metrics: { latencyMs: 0 },
  };
}
