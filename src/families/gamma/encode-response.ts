/** The canonical response → the Family C `GenerateContentResponse` a surface client expects. */
import { upstreamToolArguments } from '../shared/validate.ts';
import type { AssistantPart, ChatResponse, JsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { GammaCandidate, GammaGenerateContentResponse, GammaPart } from './wire.ts';

export function encodeResponse(response: ChatResponse, context: ResponseContext): JsonObject {
  const candidates: GammaCandidate[] = response.choices.map((choice) => ({
    content: { role: 'model', parts: choice.content.map(encodeAssistantPart) },
    finishReason: encodeFinishReason(choice.finishReason),
    index: choice.index,
  }));
  const body: GammaGenerateContentResponse = {
    candidates,
    usageMetadata: encodeUsage(response.usage),
    modelVersion: context.model,
    responseId: response.id,
  };
  return body;
}

/** Calls go out as `{name, args}` without an id, as the family's own answers do. */
export function encodeAssistantPart(part: AssistantPart): GammaPart {
  if (part.type === 'text') return { text: part.text };
  return { functionCall: { name: part.name, args: upstreamToolArguments(part.arguments) } };
}
