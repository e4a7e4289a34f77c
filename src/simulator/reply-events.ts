/** A reply plan as the canonical IR: one `ChatResponse`, or the canonical stream event order. */
import type { AssistantPart, ChatResponse, StreamEvent, Usage } from '../ir/index.ts';
import type { ChoicePlan, ReplyPlan } from './plan.ts';

export interface ReplyMeta {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

export function toChatResponse(plan: ReplyPlan, meta: ReplyMeta): ChatResponse {
  const choices = plan.choices.map((choice, index) => ({
    index,
    content: toParts(choice),
    finishReason: choice.finishReason,
  }));
  return { id: meta.id, model: meta.model, created: meta.created, choices, usage: plan.usage };
}

function toParts(choice: ChoicePlan): AssistantPart[] {
  const parts: AssistantPart[] = [];
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
    yield* choiceEvents(choicePlan, choice);
    yield { type: 'finish', choice, finishReason: choicePlan.finishReason };
  }
  yield { type: 'usage', usage: plan.usage };
  yield { type: 'message-end', usage: plan.usage };
}

function* choiceEvents(plan: ChoicePlan, choice: number): Generator<StreamEvent> {
  let index = 0;
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
