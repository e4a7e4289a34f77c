/**
 * Folds a canonical event sequence back into the response it describes. Used by tests (a decoded
 * stream must fold to the decoded non-streamed response) and by the gateway to know what a stream said.
 */
import type { AnswerPart } from './content.ts';
import type { ChatResponse, Choice } from './response.ts';
import type { StreamEvent } from './stream-event.ts';
import { emptyUsage, type Usage } from './usage.ts';

export class StreamFold {
  id = '';
  model = '';
  created = 0;
  usage: Usage = { ...emptyUsage };
  readonly #choices = new Map<number, Choice>();
  /** Open blocks by `choice:index`, pointing at the part being built. */
  readonly #open = new Map<string, AnswerPart>();

  add(event: StreamEvent): void {
    switch (event.type) {
      case 'message-start':
        this.id = event.id;
        this.model = event.model;
        this.created = event.created;
        if (event.usage !== undefined) this.usage = event.usage;
        return;
      case 'text-start':
        this.#openPart(event.choice, event.index, { type: 'text', text: '' });
        return;
      case 'text-delta': {
        const part = this.#open.get(`${event.choice}:${event.index}`);
        if (part?.type === 'text') part.text += event.text;
        return;
      }
      case 'reasoning-start':
        this.#openPart(event.choice, event.index, { type: 'reasoning', text: '' });
        return;
      case 'reasoning-delta': {
        const part = this.#open.get(`${event.choice}:${event.index}`);
        if (part?.type === 'reasoning') part.text += event.text;
        return;
      }
      case 'reasoning-end': {
        const part = this.#open.get(`${event.choice}:${event.index}`);
        if (part?.type === 'reasoning' && event.signature !== undefined) part.signature = event.signature;
        this.#open.delete(`${event.choice}:${event.index}`);
        return;
      }
      case 'tool-call-start':
        this.#openPart(event.choice, event.index, {
          type: 'tool-call',
          id: event.id,
          name: event.name,
          arguments: '',
        });
        return;
      case 'tool-call-delta': {
        const part = this.#open.get(`${event.choice}:${event.index}`);
        if (part?.type === 'tool-call') part.arguments += event.argumentsDelta;
        return;
      }
      case 'text-end':
      case 'tool-call-end':
        this.#open.delete(`${event.choice}:${event.index}`);
        return;
      case 'finish':
        this.#choice(event.choice).finishReason = event.finishReason;
        return;
      case 'usage':
      case 'message-end':
        this.usage = event.usage;
        return;
      case 'error':
        return;
    }
  }

  result(): ChatResponse {
    const choices = [...this.#choices.values()].sort((left, right) => left.index - right.index);
    return { id: this.id, model: this.model, created: this.created, choices, usage: this.usage };
  }

  #choice(index: number): Choice {
    let choice = this.#choices.get(index);
    if (choice === undefined) {
      choice = { index, content: [], finishReason: { unified: 'other' } };
      this.#choices.set(index, choice);
    }
    return choice;
  }

  #openPart(choice: number, index: number, part: AnswerPart): void {
    this.#choice(choice).content.push(part);
    this.#open.set(`${choice}:${index}`, part);
  }
}

export function foldStream(events: Iterable<StreamEvent>): ChatResponse {
  const fold = new StreamFold();
  for (const event of events) fold.add(event);
  return fold.result();
}
