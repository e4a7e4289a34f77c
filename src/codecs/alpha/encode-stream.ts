/**
 * Canonical events → `chat.completion.chunk` SSE for an A client. Runs per event: the chunk
 * envelope (id, created, model) is serialised once and only the small `choices` item per event.
 */
import type { FinishReason, GatewayError, StreamEvent, Usage } from '../../ir/index.ts';
import { sseData } from '../../sse/write-sse.ts';
import type { ResponseContext, StreamEncoder } from '../codec.ts';
import { completionId } from './encode-response.ts';
import { errorBody } from './errors.ts';
import { encodeFinishReason, encodeStopReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { AlphaDelta } from './wire.ts';

interface ChoiceState {
  /** IR block index of a tool call → its A `index` (ordinal among the choice's calls). */
  toolOrdinals: Map<number, number>;
  /** Legacy clients get only the first call, as `function_call`: its block index, or -1. */
  legacyBlock: number;
}

interface EncoderState {
  /** `{"id":…,"object":…,"created":…,"model":…,"choices":` — fixed for the whole stream. */
  head: string;
  /** `,"usage":null}` when the client asked for usage (A sends it on every chunk then), else `}`. */
  tail: string;
  choices: Map<number, ChoiceState>;
  /** A text chunk's constant parts: all of it but the escaped text, for `textChoice` under `textHead`. */
  textPrefix: string;
  textSuffix: string;
  textChoice: number;
  textHead: string;
}

export class AlphaStreamEncoder implements StreamEncoder {
  readonly #context: ResponseContext;
  readonly #state: EncoderState;

  constructor(context: ResponseContext) {
    this.#context = context;
    const tail = context.includeUsage ? ',"usage":null}' : '}';
    this.#state = {
      head: '',
      tail,
      choices: new Map(),
      textPrefix: '',
      textSuffix: `},"finish_reason":null}]${tail}\n\n`,
      textChoice: -1,
      textHead: '',
    };
  }

  encode(event: StreamEvent): string {
    switch (event.type) {
      case 'message-start':
        this.#start(event.id, event.created);
        // The role chunk of choice 0 goes out at once: clients measure time to first byte on it.
        return this.#choiceStart(0);
      case 'text-start':
        return this.#choiceStart(event.choice);
      case 'text-end':
      case 'tool-call-end':
      case 'usage':
      // Chat completions carry no thought, only its count (`reasoning_tokens`).
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end':
        // A has no block ends, and usage is said once at the end (when the client asked for it).
        return '';
      case 'text-delta':
        if (event.text === '') return '';
        return this.#choiceStart(event.choice) + this.#textDelta(event.choice, event.text);
      case 'tool-call-start':
        return (
          this.#choiceStart(event.choice) + this.#toolStart(event.choice, event.index, event.id, event.name)
        );
      case 'tool-call-delta':
        return this.#toolDelta(event.choice, event.index, event.argumentsDelta);
      case 'finish':
        return this.#choiceStart(event.choice) + this.#finish(event.choice, event.finishReason);
      case 'message-end':
        return this.#end(event.usage);
      case 'error':
        return this.#error(event.error);
    }
  }

  #start(id: string, created: number): void {
    const model = JSON.stringify(this.#context.model);
    this.#state.head = `{"id":${JSON.stringify(completionId(id))},"object":"chat.completion.chunk","created":${created},"model":${model},"choices":`;
  }

  /** The first chunk of each choice announces the role; '' for a choice already announced. */
  #choiceStart(choice: number): string {
    if (this.#state.choices.has(choice)) return '';
    this.#state.choices.set(choice, { toolOrdinals: new Map(), legacyBlock: -1 });
    // Once per choice, and constant but for the index: written as JSON.stringify would write it.
    const item = `{"index":${choice},"delta":{"role":"assistant","content":""},"finish_reason":null}`;
    return `data: ${this.#state.head}[${item}]${this.#state.tail}\n\n`;
  }

  #chunk(item: {
    index: number;
    delta: AlphaDelta;
    finish_reason: string | null;
    stop_reason?: string;
  }): string {
    return sseData(`${this.#state.head}[${JSON.stringify(item)}]${this.#state.tail}`);
  }

  /**
   * The most frequent chunk, written without building and serialising its object: the parts
   * around the text are joined once per stream (per choice), so a chunk is two joins and the
   * text's `JSON.stringify`.
   */
  #textDelta(choice: number, text: string): string {
    const state = this.#state;
    if (state.textChoice !== choice || state.textHead !== state.head) {
      state.textChoice = choice;
      state.textHead = state.head;
      state.textPrefix = `data: ${state.head}[{"index":${choice},"delta":{"content":`;
    }
    return state.textPrefix + JSON.stringify(text) + state.textSuffix;
  }

  #delta(choice: number, delta: AlphaDelta): string {
    return this.#chunk({ index: choice, delta, finish_reason: null });
  }

  #toolStart(choice: number, index: number, id: string, name: string): string {
    const state = this.#state.choices.get(choice);
    if (state === undefined) return '';
    if (this.#context.legacyFunctions) {
      if (state.legacyBlock !== -1) return '';
      state.legacyBlock = index;
      return this.#delta(choice, { function_call: { name, arguments: '' } });
    }
    const ordinal = state.toolOrdinals.size;
    state.toolOrdinals.set(index, ordinal);
    return this.#delta(choice, {
      tool_calls: [{ index: ordinal, id, type: 'function', function: { name, arguments: '' } }],
    });
  }

  #toolDelta(choice: number, index: number, fragment: string): string {
    const state = this.#state.choices.get(choice);
    if (state === undefined || fragment === '') return '';
    if (this.#context.legacyFunctions) {
      return state.legacyBlock === index
        ? this.#delta(choice, { function_call: { arguments: fragment } })
        : '';
    }
    const ordinal = state.toolOrdinals.get(index);
    if (ordinal === undefined) return '';
    return this.#delta(choice, { tool_calls: [{ index: ordinal, function: { arguments: fragment } }] });
  }

  #finish(choice: number, reason: FinishReason): string {
    const finishReason = JSON.stringify(encodeFinishReason(reason, this.#context.legacyFunctions));
    // The keys in JSON.stringify's order of `{ index, delta: {}, finish_reason, ...encodeStopReason }`.
    const stop = encodeStopReason(reason).stop_reason;
    const stopReason = stop === undefined ? '' : `,"stop_reason":${JSON.stringify(stop)}`;
    const item = `{"index":${choice},"delta":{},"finish_reason":${finishReason}${stopReason}}`;
    return `data: ${this.#state.head}[${item}]${this.#state.tail}\n\n`;
  }

  #end(usage: Usage): string {
    const usageChunk = this.#context.includeUsage
      ? sseData(`${this.#state.head}[],"usage":${JSON.stringify(encodeUsage(usage))}}`)
      : '';
    return `${usageChunk}data: [DONE]\n\n`;
  }

  #error(error: GatewayError): string {
    return sseData(JSON.stringify(errorBody(error)));
  }
}

export function createStreamEncoder(context: ResponseContext): AlphaStreamEncoder {
  return new AlphaStreamEncoder(context);
}
