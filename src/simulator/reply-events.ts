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
    content: [toPart(choice)],
    finishReason: choice.finishReason,
  }));
  return { id: meta.id, model: meta.model, created: meta.created, choices, usage: plan.usage };
}

function toPart(choice: ChoicePlan): AssistantPart {
  if (choice.kind === 'tool') {
    return { type: 'tool-call', id: choice.id, name: choice.name, arguments: choice.arguments };
  }
  let text = '';
  for (const piece of choice.pieces) text += piece.text;
  return { type: 'text', text };
}

/**
 * message-start (with the input side of usage), then per choice its block and finish, then the
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
  const index = 0;
  if (plan.kind === 'tool') {
    yield { type: 'tool-call-start', choice, index, id: plan.id, name: plan.name };
    for (const argumentsDelta of plan.fragments)
      yield { type: 'tool-call-delta', choice, index, argumentsDelta };
    yield { type: 'tool-call-end', choice, index };
    return;
  }
  yield { type: 'text-start', choice, index };
  for (const piece of plan.pieces) yield { type: 'text-delta', choice, index, text: piece.text };
  yield { type: 'text-end', choice, index };
}
