/**
 * A (or OpenAI-compatible) `chat.completion.chunk` SSE → canonical events. Block indices are
 * assigned per choice in order of appearance. A never says when a block ends, so the decoder
 * decides: the text block ends when the first tool call starts (A answers are text, then calls),
 * and a call ends when the next call starts once its arguments are complete JSON (A streams
 * parallel calls one after another). A call whose arguments are still incomplete stays open, so
 * an upstream that interleaves fragments of several calls by `index` is still decoded exactly;
 * everything left open ends at `finish_reason`.
 */
import { GatewayError, isJsonObject, type JsonObject, type JsonValue, type Usage } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import type { DecodeContext, EmitStreamEvent, StreamDecoder } from '../codec.ts';
import { argumentsText } from './decode-response.ts';
import { streamError } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { plainTextChunk } from './plain-text-chunk.ts';
import {
  isCompleteJson,
  legacyKey,
  newChoiceState,
  toolKey,
  type ChoiceState,
  type ToolBlock,
} from './stream-choices.ts';
import { decodeUsage } from './usage.ts';

interface DecoderState {
  started: boolean;
  /** `[DONE]`, an error or end: nothing more is decoded. */
  done: boolean;
  usage: Usage | undefined;
  choices: Map<number, ChoiceState>;
}

export class AlphaStreamDecoder implements StreamDecoder {
  readonly #context: DecodeContext;
  readonly #state: DecoderState = { started: false, done: false, usage: undefined, choices: new Map() };

  constructor(context: DecodeContext) {
    this.#context = context;
  }

  push(message: SseMessage, emit: EmitStreamEvent): void {
    if (this.#state.done) return;
    if (message.data === '[DONE]') {
      this.#complete(emit);
      return;
    }
    const plain = this.#state.started ? plainTextChunk(message.data) : undefined;
    if (plain !== undefined) {
      const choice = this.#choiceState(plain.index);
      if (!choice.finished) this.#text(plain.index, choice, plain.text, emit);
      return;
    }
    const chunk = parseChunk(message.data);
    if (chunk === undefined) {
      this.#fail(emit, new GatewayError('upstream', 'upstream sent a stream chunk that is not JSON'));
      return;
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      this.#fail(emit, streamError(chunk));
      return;
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const hasUsage = isJsonObject(chunk.usage);
    // Azure-style preamble chunks (no choices, no usage, empty id) say nothing yet.
    if (choices.length === 0 && !hasUsage) return;
    this.#start(chunk, emit);
    for (const item of choices) if (isJsonObject(item) && !this.#stopped()) this.#choice(item, emit);
    if (this.#stopped()) return;
    if (hasUsage) {
      this.#state.usage = decodeUsage(chunk.usage);
      emit({ type: 'usage', usage: this.#state.usage });
    }
  }

  end(emit: EmitStreamEvent): void {
    if (this.#state.done) return;
    this.#fail(emit, new GatewayError('upstream', 'upstream stream ended before completion'));
  }

  #start(chunk: JsonObject, emit: EmitStreamEvent): void {
    if (this.#state.started) return;
    this.#state.started = true;
    const id =
      typeof chunk.id === 'string' && chunk.id !== '' ? chunk.id : this.#context.generateId('chatcmpl-');
    const model = typeof chunk.model === 'string' ? chunk.model : '';
    const created =
      typeof chunk.created === 'number' ? chunk.created : Math.floor(this.#context.now() / 1000);
    emit({ type: 'message-start', id, model, created });
  }

  /** A method, not a field read, so checks after calls that may fail are not narrowed away. */
  #stopped(): boolean {
    return this.#state.done;
  }

  #fail(emit: EmitStreamEvent, error: GatewayError): void {
    this.#start({}, emit);
    this.#state.done = true;
    emit({ type: 'error', error });
  }

  /** `[DONE]`: finish choices the upstream left unfinished, then end with the last usage seen. */
  #complete(emit: EmitStreamEvent): void {
    this.#start({}, emit);
    for (const [index, choice] of this.#state.choices)
      if (!choice.finished) this.#finish(index, choice, null, emit, undefined);
    this.#state.done = true;
    const usage = this.#state.usage ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    emit({ type: 'message-end', usage });
  }

  #choiceState(index: number): ChoiceState {
    let choice = this.#state.choices.get(index);
    if (choice === undefined) {
      choice = newChoiceState();
      this.#state.choices.set(index, choice);
    }
    return choice;
  }

  #choice(item: JsonObject, emit: EmitStreamEvent): void {
    const index = typeof item.index === 'number' ? item.index : 0;
    const choice = this.#choiceState(index);
    if (choice.finished) return;
    const delta = isJsonObject(item.delta) ? item.delta : {};
    if (typeof delta.content === 'string') this.#text(index, choice, delta.content, emit);
    // A refusal is what the model said instead of an answer: the client sees it as text.
    if (typeof delta.refusal === 'string') this.#text(index, choice, delta.refusal, emit);
    // `tool_calls: []` (some servers send it on every chunk) carries nothing.
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls)
        if (isJsonObject(fragment) && !this.#stopped()) this.#toolFragment(index, choice, fragment, emit);
    }
    if (isJsonObject(delta.function_call)) this.#legacyFragment(index, choice, delta.function_call, emit);
    if (this.#stopped()) return;
    const reason = item.finish_reason;
    if (reason !== undefined && reason !== null) this.#finish(index, choice, reason, emit, item.stop_reason);
  }

  #text(index: number, choice: ChoiceState, text: string, emit: EmitStreamEvent): void {
    if (text === '') return;
    if (choice.textBlock === -1) {
      choice.textBlock = choice.nextBlock++;
      choice.open.push({ kind: 'text', index: choice.textBlock });
      emit({ type: 'text-start', choice: index, index: choice.textBlock });
    }
    emit({ type: 'text-delta', choice: index, index: choice.textBlock, text });
  }

  #toolFragment(index: number, choice: ChoiceState, fragment: JsonObject, emit: EmitStreamEvent): void {
    const key = toolKey(choice, fragment);
    const fn = isJsonObject(fragment.function) ? fragment.function : {};
    let block = choice.toolBlocks.get(key);
    if (block === undefined) {
      this.#closeBefore(index, choice, emit);
      block = this.#openTool(index, choice, fragment.id, fn.name, emit);
      choice.toolBlocks.set(key, block);
      choice.lastToolKey = key;
    }
    this.#arguments(index, block, argumentsText(fn.arguments), emit);
  }

  #legacyFragment(index: number, choice: ChoiceState, fn: JsonObject, emit: EmitStreamEvent): void {
    let block = choice.toolBlocks.get(legacyKey);
    if (block === undefined) {
      this.#closeBefore(index, choice, emit);
      block = this.#openTool(index, choice, undefined, fn.name, emit);
      choice.toolBlocks.set(legacyKey, block);
    }
    this.#arguments(index, block, argumentsText(fn.arguments), emit);
  }

  #arguments(index: number, block: ToolBlock, fragment: string, emit: EmitStreamEvent): void {
    if (fragment === '') return;
    if (block.closed) {
      // Only a call whose arguments were already complete JSON was closed; whitespace after it
      // changes nothing, anything else would be a second JSON value: the upstream is broken.
      if (fragment.trim() === '') return;
      this.#fail(
        emit,
        new GatewayError('upstream', 'the upstream continued tool-call arguments that were already complete'),
      );
      return;
    }
    block.args += fragment;
    emit({ type: 'tool-call-delta', choice: index, index: block.index, argumentsDelta: fragment });
  }

  /**
   * A new call starts: the text before it is over, and so is the previous call when its arguments
   * already form complete JSON (A streams parallel calls one after another).
   */
  #closeBefore(index: number, choice: ChoiceState, emit: EmitStreamEvent): void {
    if (choice.textBlock !== -1) {
      this.#close(index, choice, choice.textBlock, emit);
      choice.textBlock = -1;
    }
    const last = choice.open.findLast((block) => block.kind === 'tool');
    if (last === undefined) return;
    for (const block of choice.toolBlocks.values()) {
      if (block.index !== last.index || !isCompleteJson(block.args)) continue;
      block.closed = true;
      block.args = '';
      this.#close(index, choice, block.index, emit);
    }
  }

  #close(index: number, choice: ChoiceState, block: number, emit: EmitStreamEvent): void {
    const position = choice.open.findIndex((open) => open.index === block);
    const open = choice.open[position];
    if (open === undefined) return;
    choice.open.splice(position, 1);
    emit(
      open.kind === 'text'
        ? { type: 'text-end', choice: index, index: block }
        : { type: 'tool-call-end', choice: index, index: block },
    );
  }

  #openTool(
    index: number,
    choice: ChoiceState,
    id: JsonValue | undefined,
    name: JsonValue | undefined,
    emit: EmitStreamEvent,
  ): ToolBlock {
    const block = choice.nextBlock++;
    choice.open.push({ kind: 'tool', index: block });
    emit({
      type: 'tool-call-start',
      choice: index,
      index: block,
      id: typeof id === 'string' && id !== '' ? id : this.#context.generateId('call_'),
      name: typeof name === 'string' ? name : '',
    });
    return { index: block, args: '', closed: false };
  }

  #finish(
    index: number,
    choice: ChoiceState,
    raw: JsonValue,
    emit: EmitStreamEvent,
    stopReason: JsonValue | undefined,
  ): void {
    let hasToolCalls = false;
    for (const block of choice.open) {
      if (block.kind === 'tool') hasToolCalls = true;
      if (block.kind === 'text') emit({ type: 'text-end', choice: index, index: block.index });
      else emit({ type: 'tool-call-end', choice: index, index: block.index });
    }
    choice.open = [];
    choice.finished = true;
    emit({ type: 'finish', choice: index, finishReason: decodeFinishReason(raw, hasToolCalls, stopReason) });
  }
}

function parseChunk(data: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function createStreamDecoder(context: DecodeContext): AlphaStreamDecoder {
  return new AlphaStreamDecoder(context);
}
