/** The canonical response → the Family C `GenerateContentResponse` a surface client expects. */
import { upstreamToolArguments } from '../shared/validate.ts';
import type { AnswerPart, AssistantPart, ChatResponse, JsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { encodeFinish } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { GammaCandidate, GammaFunctionCall, GammaGenerateContentResponse, GammaPart } from './wire.ts';

export function encodeResponse(response: ChatResponse, context: ResponseContext): JsonObject {
  const candidates: GammaCandidate[] = response.choices.map((choice) => ({
    content: { role: 'model', parts: choice.content.map(encodeAnswerPart) },
    ...encodeFinish(choice.finishReason),
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

/** A thought is a `thought: true` part, before the answer's parts as the family sends them. */
function encodeAnswerPart(part: AnswerPart): GammaPart {
  if (part.type !== 'reasoning') return encodeAssistantPart(part);
  return thoughtPart(part.text, part.signature);
}

export function thoughtPart(text: string, signature: string | undefined): GammaPart {
  return signature === undefined
    ? { text, thought: true }
    : { text, thought: true, thoughtSignature: signature };
}

/**
 * Calls go out as `{id, name, args}`. The family's optional `id` ("return the response with the
 * matching id") lets a client answer with the id, which maps the result back to the upstream's
 * own call exactly; clients that ignore it are paired by name and position instead.
 */
export function encodeAssistantPart(part: AssistantPart): GammaPart {
  if (part.type === 'text') return { text: part.text };
  return { functionCall: functionCall(part.id, part.name, part.arguments) };
}

export function functionCall(id: string, name: string, args: string): GammaFunctionCall {
  const call: GammaFunctionCall = { name, args: upstreamToolArguments(args) };
  if (id !== '') call.id = id;
  return call;
}
