/** A reply plan as the canonical IR: one `ChatResponse`, or the canonical stream event order. */
import type { AnswerPart, ChatResponse, StreamEvent, Usage } from '../ir/index.ts';
import type { ChoicePlan, ReplyPlan } from './plan.ts';
import type { ThoughtPlan } from './thought.ts';

export interface ReplyMeta {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

export function toChatResponse(plan: ReplyPlan, meta: ReplyMeta): ChatResponse {
  const choices = plan.choices.map((choice, index) => ({
    index,
    content: index === 0 ? [...thoughtParts(plan), ...toParts(choice)] : toParts(choice),
    finishReason: choice.finishReason,
  }));
  return { id: meta.id, model: meta.model, created: meta.created, choices, usage: plan.usage };
}

function thoughtParts(plan: ReplyPlan): AnswerPart[] {
  const { thought } = plan;
  if (thought === undefined) return [];
  const text = thought.pieces.map((piece) => piece.text).join('');
  return [{ type: 'reasoning', text, signature: thought.signature }];
}

function toParts(choice: ChoicePlan): AnswerPart[] {
  const parts: AnswerPart[] = [];
  if (choice.pieces.length > 0 || choice.calls.length === 0) {
    let text = '';
    for (const piece of choice.pieces) text += piece.text;
    parts.push({ type: 'text', text });
  }
  for (const call of choice.calls)
    parts.push({ type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments });
  return parts;
}

/**
 * message-start (with the input side of usage), then per choice its blocks and finish, then the
 * final usage and message-end. Deltas are one per token piece / argument fragment.
 */
export function* toStreamEvents(plan: ReplyPlan, meta: ReplyMeta): Generator<StreamEvent> {
  const startUsage: Usage = { ...plan.usage, outputTokens: 0 };
  yield { type: 'message-start', id: meta.id, model: meta.model, created: meta.created, usage: startUsage };
  for (let choice = 0; choice < plan.choices.length; choice++) {
    const choicePlan = plan.choices[choice];
    if (choicePlan === undefined) continue;
    if (choice === 0 && plan.thought !== undefined) yield* thoughtEvents(plan.thought);
    yield* choiceEvents(choicePlan, choice, choice === 0 && plan.thought !== undefined ? 1 : 0);
    yield { type: 'finish', choice, finishReason: choicePlan.finishReason };
  }
  yield { type: 'usage', usage: plan.usage };
  yield { type: 'message-end', usage: plan.usage };
}

/** The thought, block 0 of the first candidate: one delta per token piece, the signature at its end. */
function* thoughtEvents(thought: ThoughtPlan): Generator<StreamEvent> {
  yield { type: 'reasoning-start', choice: 0, index: 0 };
  for (const piece of thought.pieces)
    yield { type: 'reasoning-delta', choice: 0, index: 0, text: piece.text };
  yield { type: 'reasoning-end', choice: 0, index: 0, signature: thought.signature };
}

function* choiceEvents(plan: ChoicePlan, choice: number, firstIndex: number): Generator<StreamEvent> {
  let index = firstIndex;
  if (plan.pieces.length > 0 || plan.calls.length === 0) {
    yield { type: 'text-start', choice, index };
    for (const piece of plan.pieces) yield { type: 'text-delta', choice, index, text: piece.text };
    yield { type: 'text-end', choice, index };
    index++;
  }
  for (const call of plan.calls) {
    yield { type: 'tool-call-start', choice, index, id: call.id, name: call.name };
    for (const argumentsDelta of call.fragments)
      yield { type: 'tool-call-delta', choice, index, argumentsDelta };
    yield { type: 'tool-call-end', choice, index };
    index++;
  }
}
