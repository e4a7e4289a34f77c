/** A Family C `GenerateContentResponse` from an upstream → the canonical response. */
import { GatewayError, isJsonObject } from '../../ir/index.ts';
import type { AnswerPart, ChatResponse, Choice, JsonObject, ToolCallPart } from '../../ir/index.ts';
import type { DecodeContext } from '../codec.ts';
import { stableId } from '../shared/stable-id.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

export function decodeResponse(body: unknown, context: DecodeContext): ChatResponse {
  if (!isJsonObject(body))
    throw new GatewayError('upstream', 'the upstream answered with a body that is not a JSON object');
  const candidates = Array.isArray(body.candidates) ? body.candidates.filter(isJsonObject) : [];
  const id = typeof body.responseId === 'string' ? body.responseId : context.generateId('gen_');
  const choices = candidates.map((candidate, position) => decodeCandidate(candidate, position, id));
  if (choices.length === 0) choices.push(blockedChoice(body.promptFeedback));
  choices.sort((left, right) => left.index - right.index);
  return {
    id,
    model: typeof body.modelVersion === 'string' ? body.modelVersion : '',
    created: createdSeconds(body.createTime, context),
    choices,
    usage: decodeUsage(body.usageMetadata),
  };
}

/** C-cloud sends `createTime` (RFC 3339); the public API sends nothing, so the clock decides. */
export function createdSeconds(createTime: unknown, context: DecodeContext): number {
  const parsed = typeof createTime === 'string' ? Date.parse(createTime) : Number.NaN;
  return Math.floor((Number.isFinite(parsed) ? parsed : context.now()) / 1000);
}

export function candidateIndex(candidate: JsonObject, position: number): number {
  return typeof candidate.index === 'number' ? candidate.index : position;
}

/** The candidate's raw parts (no copy: this runs per stream chunk); callers skip non-objects. */
export function candidateParts(candidate: JsonObject): readonly unknown[] {
  const content = candidate.content;
  return isJsonObject(content) && Array.isArray(content.parts) ? content.parts : [];
}

/** A `thought: true` part joins the thought before it (or starts one); its signature is kept. */
function addThought(content: AnswerPart[], part: JsonObject): void {
  const text = typeof part.text === 'string' ? part.text : '';
  const last = content.at(-1);
  if (last?.type === 'reasoning') last.text += text;
  else content.push({ type: 'reasoning', text });
  signThought(content.at(-1), part.thoughtSignature);
}

/**
 * The family signs a thought on one of its parts or on the part right after it (the answer's
 * first text or call): a thought still unsigned takes that signature (the part keeps its own).
 */
export function signThought(thought: AnswerPart | undefined, signature: unknown): void {
  if (thought?.type !== 'reasoning' || thought.signature !== undefined) return;
  if (typeof signature === 'string' && signature !== '') thought.signature = signature;
}

function decodeCandidate(candidate: JsonObject, position: number, responseId: string): Choice {
  const index = candidateIndex(candidate, position);
  const content: AnswerPart[] = [];
  let calls = 0;
  for (const part of candidateParts(candidate)) {
    if (!isJsonObject(part)) continue;
    // Thought summaries are reasoning, not answer text; adjacent ones are one thought.
    if (part.thought === true) {
      addThought(content, part);
      continue;
    }
    signThought(content.at(-1), part.thoughtSignature);
    if (typeof part.text === 'string' && part.text !== '') {
      const last = content.at(-1);
      // Adjacent text parts are one block, as a streamed reply folds to.
      if (last?.type === 'text') last.text += part.text;
      else content.push({ type: 'text', text: part.text });
    } else if (isJsonObject(part.functionCall)) {
      content.push(decodeFunctionCall(part.functionCall, callId(responseId, index, calls++)));
    }
  }
  const hasToolCalls = content.some((part) => part.type === 'tool-call');
  const raw = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
  return {
    index,
    content,
    finishReason:
      raw === undefined
        ? { unified: 'other' }
        : decodeFinishReason(raw, hasToolCalls, candidate.finishMessage),
  };
}

/**
 * C calls usually carry no id: one is synthesized from the response id, the candidate and the
 * call's position, so the same answer gives the same ids whether streamed or not. Results come
 * back paired by name and position (ids are not sent to C upstreams), so nothing needs storing.
 */
export function callId(responseId: string, candidate: number, ordinal: number): string {
  return stableId('call_', responseId, candidate, ordinal);
}

/** `fallbackId` is used when the upstream sent no `id` of its own (which is then kept). */
export function decodeFunctionCall(call: JsonObject, fallbackId: string): ToolCallPart {
  return {
    type: 'tool-call',
    id: typeof call.id === 'string' && call.id !== '' ? call.id : fallbackId,
    name: typeof call.name === 'string' ? call.name : '',
    arguments: JSON.stringify(isJsonObject(call.args) ? call.args : {}),
  };
}

/** A blocked prompt is HTTP 200 with `promptFeedback.blockReason` and no candidates: one empty, filtered choice. */
export function blockedChoice(feedback: unknown): Choice {
  const reason =
    isJsonObject(feedback) && typeof feedback.blockReason === 'string' ? feedback.blockReason : undefined;
  return {
    index: 0,
    content: [],
    finishReason: reason === undefined ? { unified: 'other' } : { unified: 'content-filter', raw: reason },
  };
}
