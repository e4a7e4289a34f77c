/** The canonical response → the Family C `GenerateContentResponse` a surface client expects. */
import { GatewayError, isJsonObject } from '../../ir/index.ts';
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
  return { functionCall: { name: part.name, args: toolArguments(part.arguments) } };
}

/**
 * C needs an args object; the IR holds the upstream's JSON text. Text that is not a JSON object is
 * the upstream's fault (an A model can emit broken JSON), reported as such rather than guessed at.
 */
export function toolArguments(text: string): JsonObject {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isJsonObject(value)) {
    throw new GatewayError(
      'upstream',
      'the upstream produced tool-call arguments that are not a JSON object',
    );
  }
  return value;
}
