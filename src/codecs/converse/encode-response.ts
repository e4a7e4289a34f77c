/** The canonical response → a Converse answer (`output.message`, `stopReason`, `usage`, `metrics`). */
import type { ResponseContext } from '../codec.ts';
import type { AssistantPart, ChatResponse, JsonObject } from '../../ir/index.ts';
import { upstreamToolArguments } from '../shared/validate.ts';
import { encodeStopReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';

export function encodeContent(parts: readonly AssistantPart[]): JsonObject[] {
  return parts.map((part) =>
    part.type === 'text'
      ? { text: part.text }
      : { toolUse: { toolUseId: part.id, name: part.name, input: upstreamToolArguments(part.arguments) } },
  );
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
