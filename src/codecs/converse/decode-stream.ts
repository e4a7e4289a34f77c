/**
 * Upstream ConverseStream → canonical events. The provider re-frames AWS's binary event stream as
 * SSE (`event: <eventType>`, `data: <payload>`), which is what this decoder reads. Text blocks open
 * with their first delta (Converse sends `contentBlockStart` only for tool uses); reasoning blocks
 * have no IR form and are skipped. `messageStop` carries the stop reason, the `metadata` event after
 * it the usage; an exception event (`throttlingException`, …) ends the stream with its error.
 */
import type { DecodeContext, EmitStreamEvent, StreamDecoder } from '../codec.ts';
import type { JsonObject, Usage } from '../../ir/index.ts';
import { GatewayError, emptyUsage, isJsonObject } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import { decodeStreamException, isStreamException } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

interface BlockState {
  kind: 'text' | 'tool' | 'reasoning' | 'skip';
  index: number;
  /** A reasoning block's signature, given with its end. */
  signature?: string;
}

export class ConverseStreamDecoder implements StreamDecoder {
  readonly #context: DecodeContext;
  #started = false;
  #finished = false;
  #done = false;
  #usage: Usage = { ...emptyUsage };
  /** Open blocks by Converse `contentBlockIndex`. */
  readonly #blocks = new Map<number, BlockState>();
  #nextIndex = 0;

  constructor(context: DecodeContext) {
    this.#context = context;
  }

  push(message: SseMessage, emit: EmitStreamEvent): void {
    if (this.#done) return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      this.#fail(new GatewayError('upstream', 'the converse upstream sent a malformed stream event'), emit);
      return;
    }
    const payload = isJsonObject(data) ? data : {};
    if (isStreamException(message.event)) {
      this.#fail(decodeStreamException(message.event, payload), emit);
      return;
    }
    this.#dispatch(message.event, payload, emit);
  }

  end(emit: EmitStreamEvent): void {
    if (this.#done) return;
    // A stream cut after `messageStop` lost only its usage: the answer itself is whole.
    if (this.#finished) {
      this.#done = true;
      emit({ type: 'message-end', usage: this.#usage });
      return;
    }
    this.#fail(new GatewayError('upstream', 'upstream stream ended before completion'), emit);
  }

  #dispatch(type: string | undefined, data: JsonObject, emit: EmitStreamEvent): void {
    if (type === undefined) return;
    switch (type) {
      case 'messageStart':
        this.#start(emit);
        return;
      case 'contentBlockStart':
        this.#blockStart(data, emit);
        return;
      case 'contentBlockDelta':
        this.#blockDelta(data, emit);
        return;
      case 'contentBlockStop':
        this.#blockStop(indexOf(data), emit);
        return;
      case 'messageStop':
        this.#stop(data, emit);
        return;
      case 'metadata':
        this.#metadata(data, emit);
        return;
    }
  }

  #start(emit: EmitStreamEvent): void {
    if (this.#started) return;
    this.#started = true;
    const { generateId, now } = this.#context;
    emit({ type: 'message-start', id: generateId('msg_'), model: '', created: Math.floor(now() / 1000) });
  }

  #blockStart(data: JsonObject, emit: EmitStreamEvent): void {
    this.#start(emit);
    const start = isJsonObject(data.start) ? data.start : {};
    const index = indexOf(data);
    if (this.#blocks.has(index)) return;
    if (isJsonObject(start.toolUse)) {
      const use = start.toolUse;
      const block: BlockState = { kind: 'tool', index: this.#nextIndex++ };
      this.#blocks.set(index, block);
      emit({
        type: 'tool-call-start',
        choice: 0,
        index: block.index,
        id: typeof use.toolUseId === 'string' ? use.toolUseId : this.#context.generateId('tooluse_'),
        name: typeof use.name === 'string' ? use.name : '',
      });
    } else {
      this.#blocks.set(index, { kind: 'skip', index: -1 });
    }
  }

  #blockDelta(data: JsonObject, emit: EmitStreamEvent): void {
    this.#start(emit);
    const delta = isJsonObject(data.delta) ? data.delta : {};
    const index = indexOf(data);
    let block = this.#blocks.get(index);
    if (block === undefined) {
      // Text and reasoning open with their first delta; redacted reasoning has no IR form.
      const thought =
        isJsonObject(delta.reasoningContent) && delta.reasoningContent.redactedContent === undefined;
      block =
        typeof delta.text === 'string'
          ? { kind: 'text', index: this.#nextIndex++ }
          : thought
            ? { kind: 'reasoning', index: this.#nextIndex++ }
            : { kind: 'skip', index: -1 };
      this.#blocks.set(index, block);
      if (block.kind === 'text') emit({ type: 'text-start', choice: 0, index: block.index });
      if (block.kind === 'reasoning') emit({ type: 'reasoning-start', choice: 0, index: block.index });
    }
    if (block.kind === 'reasoning' && isJsonObject(delta.reasoningContent)) {
      const { text, signature } = delta.reasoningContent;
      if (typeof text === 'string' && text !== '')
        emit({ type: 'reasoning-delta', choice: 0, index: block.index, text });
      if (typeof signature === 'string' && signature !== '') block.signature = signature;
      return;
    }
    if (block.kind === 'text' && typeof delta.text === 'string' && delta.text !== '') {
      emit({ type: 'text-delta', choice: 0, index: block.index, text: delta.text });
    } else if (
      block.kind === 'tool' &&
      isJsonObject(delta.toolUse) &&
      typeof delta.toolUse.input === 'string'
    ) {
      emit({ type: 'tool-call-delta', choice: 0, index: block.index, argumentsDelta: delta.toolUse.input });
    }
  }

  #blockStop(index: number, emit: EmitStreamEvent): void {
    const block = this.#blocks.get(index);
    if (block === undefined) return;
    this.#blocks.delete(index);
    if (block.kind === 'text') emit({ type: 'text-end', choice: 0, index: block.index });
    if (block.kind === 'tool') emit({ type: 'tool-call-end', choice: 0, index: block.index });
    if (block.kind === 'reasoning') {
      const { index: at, signature } = block;
      emit(
        signature === undefined
          ? { type: 'reasoning-end', choice: 0, index: at }
          : { type: 'reasoning-end', choice: 0, index: at, signature },
      );
    }
  }

  #stop(data: JsonObject, emit: EmitStreamEvent): void {
    this.#start(emit);
    for (const index of [...this.#blocks.keys()]) this.#blockStop(index, emit);
    if (this.#finished) return;
    this.#finished = true;
    emit({ type: 'finish', choice: 0, finishReason: decodeFinishReason(data.stopReason) });
  }

  #metadata(data: JsonObject, emit: EmitStreamEvent): void {
    if (data.usage !== undefined) {
      this.#usage = decodeUsage(data.usage);
      emit({ type: 'usage', usage: this.#usage });
    }
    if (!this.#finished) return;
    this.#done = true;
    emit({ type: 'message-end', usage: this.#usage });
  }

  #fail(error: GatewayError, emit: EmitStreamEvent): void {
    this.#done = true;
    emit({ type: 'error', error });
  }
}

function indexOf(data: JsonObject): number {
  return typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : 0;
}

export function createStreamDecoder(context: DecodeContext): StreamDecoder {
  return new ConverseStreamDecoder(context);
}
