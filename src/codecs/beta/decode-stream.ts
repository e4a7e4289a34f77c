/**
 * Upstream beta SSE → canonical events. B names every event; blocks are keyed by B's `index` and
 * may interleave, so each B index maps to its own IR block. `message_delta.usage` is CUMULATIVE:
 * it replaces the running counts field by field, and fields it omits keep `message_start`'s values.
 */
import type { DecodeContext, EmitStreamEvent, StreamDecoder } from '../codec.ts';
import type { JsonObject, Usage } from '../../ir/index.ts';
import { GatewayError, isJsonObject } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import { startsAt } from '../shared/scan-event.ts';
import { decodeStreamError } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { count, thinkingTokens } from './usage.ts';

/** One B content block: its IR index, or `skip` for redacted thinking / server-tool blocks (no IR form). */
interface BlockState {
  kind: 'text' | 'tool' | 'thinking' | 'skip';
  index: number;
  /** A thinking block's signature (`signature_delta`), given with its end. */
  signature?: string;
}

/** B's own usage fields; `inputTokens` here is B's uncached `input_tokens`. */
interface RunningUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number | undefined;
}

/** `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`, split around N and the text. */
const textDeltaPrefix = '{"type":"content_block_delta","index":';
const textDeltaMiddle = ',"delta":{"type":"text_delta","text":"';
const textDeltaSuffix = '"}}';

export class BetaStreamDecoder implements StreamDecoder {
  readonly #context: DecodeContext;
  #started = false;
  #done = false;
  #finished = false;
  /** Open blocks by B index. */
  readonly #blocks = new Map<number, BlockState>();
  #nextIndex = 0;
  /** The last text delta's head (`textDeltaPrefix`, its B index, `textDeltaMiddle`) and index. */
  #textDeltaHead = '';
  #textDeltaIndex = -1;
  readonly #usage: RunningUsage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: undefined,
  };

  constructor(context: DecodeContext) {
    this.#context = context;
  }

  push(message: SseMessage, emit: EmitStreamEvent): void {
    if (this.#done || message.event === 'ping') return;
    if (message.event === 'content_block_delta' && this.#plainTextDelta(message.data, emit)) return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      this.#fail(new GatewayError('upstream', 'the beta upstream sent a malformed stream event'), emit);
      return;
    }
    if (!isJsonObject(data)) return;
    this.#dispatch(message.event ?? data.type, data, emit);
  }

  end(emit: EmitStreamEvent): void {
    if (this.#done) return;
    this.#fail(new GatewayError('upstream', 'upstream stream ended before completion'), emit);
  }

  #dispatch(type: unknown, data: JsonObject, emit: EmitStreamEvent): void {
    switch (type) {
      case 'message_start':
        this.#messageStart(data, emit);
        return;
      case 'content_block_start':
        this.#blockStart(data, emit);
        return;
      case 'content_block_delta':
        this.#blockDelta(data, emit);
        return;
      case 'content_block_stop':
        this.#blockStop(count(data.index), emit);
        return;
      case 'message_delta':
        this.#messageDelta(data, emit);
        return;
      case 'message_stop':
        this.#start(emit, {});
        this.#closeBlocks(emit);
        this.#done = true;
        emit({ type: 'message-end', usage: this.#currentUsage() });
        return;
      case 'error':
        this.#fail(decodeStreamError(data.error), emit);
        return;
      default:
        // `ping` and event types added later must be tolerated (B docs, "Other events").
        return;
    }
  }

  #messageStart(data: JsonObject, emit: EmitStreamEvent): void {
    if (this.#started) return;
    const message = isJsonObject(data.message) ? data.message : {};
    if (isJsonObject(message.usage)) this.#updateUsage(message.usage);
    this.#start(emit, message);
  }

  /** Emits `message-start` once; a stream whose first event is not `message_start` still gets one. */
  #start(emit: EmitStreamEvent, message: JsonObject): void {
    if (this.#started) return;
    this.#started = true;
    const id =
      typeof message.id === 'string' && message.id !== '' ? message.id : this.#context.generateId('msg_');
    const model = typeof message.model === 'string' ? message.model : '';
    const created = Math.floor(this.#context.now() / 1000);
    emit({ type: 'message-start', id, model, created, usage: this.#currentUsage() });
  }

  #blockStart(data: JsonObject, emit: EmitStreamEvent): void {
    const wireIndex = count(data.index);
    const block = data.content_block;
    if (wireIndex === undefined || !isJsonObject(block) || this.#blocks.has(wireIndex)) return;
    this.#start(emit, {});
    if (block.type === 'text') {
      const index = this.#nextIndex++;
      this.#blocks.set(wireIndex, { kind: 'text', index });
      emit({ type: 'text-start', choice: 0, index });
      if (typeof block.text === 'string' && block.text !== '')
        emit({ type: 'text-delta', choice: 0, index, text: block.text });
    } else if (block.type === 'tool_use') {
      const index = this.#nextIndex++;
      this.#blocks.set(wireIndex, { kind: 'tool', index });
      const id = typeof block.id === 'string' ? block.id : '';
      const name = typeof block.name === 'string' ? block.name : '';
      emit({ type: 'tool-call-start', choice: 0, index, id, name });
      // Real streams start with `input: {}`; a proxy that sends the whole input up front is honoured.
      if (isJsonObject(block.input) && hasKeys(block.input)) {
        emit({ type: 'tool-call-delta', choice: 0, index, argumentsDelta: JSON.stringify(block.input) });
      }
    } else if (block.type === 'thinking') {
      const index = this.#nextIndex++;
      this.#blocks.set(wireIndex, { kind: 'thinking', index });
      emit({ type: 'reasoning-start', choice: 0, index });
      if (typeof block.thinking === 'string' && block.thinking !== '')
        emit({ type: 'reasoning-delta', choice: 0, index, text: block.thinking });
    } else {
      this.#blocks.set(wireIndex, { kind: 'skip', index: -1 });
    }
  }

  /**
   * Most events of a stream are text deltas in B's exact wire form. When the text has no escapes
   * (no `\\`, no `"`), the JSON is exactly prefix + text + suffix and needs no parser: true when
   * the event was handled so. Anything else (escapes, another shape) goes through JSON.parse.
   * One leniency: a raw control character in the text (invalid JSON) is passed on, not refused.
   */
  #plainTextDelta(data: string, emit: EmitStreamEvent): boolean {
    if (!data.endsWith(textDeltaSuffix)) return false;
    const head = this.#textDeltaHead;
    const cached = head.length > 0 && startsAt(data, head);
    const textStart = cached ? head.length : this.#readTextDeltaHead(data);
    const textEnd = data.length - textDeltaSuffix.length;
    if (textStart < 0 || textEnd < textStart) return false;
    const text = data.slice(textStart, textEnd);
    if (text.includes('"') || text.includes('\\')) return false;
    const block = this.#blocks.get(this.#textDeltaIndex);
    if (block?.kind === 'text' && text !== '')
      emit({ type: 'text-delta', choice: 0, index: block.index, text });
    return true;
  }

  /**
   * A text delta's head (prefix, B index, middle) read field by field: where its text starts, or
   * -1 when it is not one. The head, rebuilt from the index, is kept: a stream's deltas nearly all
   * share it, and one comparison then stands for the prefix, the index and the middle (an index
   * written otherwise, `01`, never matches the rebuilt head and is read here each time).
   */
  #readTextDeltaHead(data: string): number {
    if (!startsAt(data, textDeltaPrefix)) return -1;
    const indexEnd = data.indexOf(',', textDeltaPrefix.length);
    if (indexEnd <= textDeltaPrefix.length || !startsAt(data, textDeltaMiddle, indexEnd)) return -1;
    const wireIndex = Number(data.slice(textDeltaPrefix.length, indexEnd));
    if (!Number.isSafeInteger(wireIndex) || wireIndex < 0) return -1;
    this.#textDeltaIndex = wireIndex;
    this.#textDeltaHead = `${textDeltaPrefix}${wireIndex}${textDeltaMiddle}`;
    return indexEnd + textDeltaMiddle.length;
  }

  #blockDelta(data: JsonObject, emit: EmitStreamEvent): void {
    const wireIndex = count(data.index);
    const block = wireIndex === undefined ? undefined : this.#blocks.get(wireIndex);
    const delta = data.delta;
    if (block === undefined || !isJsonObject(delta)) return;
    if (block.kind === 'text' && delta.type === 'text_delta') {
      if (typeof delta.text === 'string' && delta.text !== '') {
        emit({ type: 'text-delta', choice: 0, index: block.index, text: delta.text });
      }
    } else if (block.kind === 'thinking') {
      if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string' && delta.thinking !== '')
        emit({ type: 'reasoning-delta', choice: 0, index: block.index, text: delta.thinking });
      else if (delta.type === 'signature_delta' && typeof delta.signature === 'string')
        block.signature = (block.signature ?? '') + delta.signature;
    } else if (block.kind === 'tool' && delta.type === 'input_json_delta') {
      // The leading `partial_json: ""` fragment carries nothing.
      if (typeof delta.partial_json === 'string' && delta.partial_json !== '') {
        emit({ type: 'tool-call-delta', choice: 0, index: block.index, argumentsDelta: delta.partial_json });
      }
    }
  }

  #blockStop(wireIndex: number | undefined, emit: EmitStreamEvent): void {
    const block = wireIndex === undefined ? undefined : this.#blocks.get(wireIndex);
    if (wireIndex === undefined || block === undefined) return;
    this.#blocks.delete(wireIndex);
    if (block.kind === 'text') emit({ type: 'text-end', choice: 0, index: block.index });
    else if (block.kind === 'tool') emit({ type: 'tool-call-end', choice: 0, index: block.index });
    else if (block.kind === 'thinking') {
      const { signature } = block;
      emit(
        signature === undefined || signature === ''
          ? { type: 'reasoning-end', choice: 0, index: block.index }
          : { type: 'reasoning-end', choice: 0, index: block.index, signature },
      );
    }
  }

  #closeBlocks(emit: EmitStreamEvent): void {
    for (const wireIndex of [...this.#blocks.keys()]) this.#blockStop(wireIndex, emit);
  }

  #messageDelta(data: JsonObject, emit: EmitStreamEvent): void {
    this.#start(emit, {});
    const delta = isJsonObject(data.delta) ? data.delta : {};
    if (!this.#finished && typeof delta.stop_reason === 'string') {
      this.#closeBlocks(emit);
      this.#finished = true;
      emit({
        type: 'finish',
        choice: 0,
        finishReason: decodeFinishReason(delta.stop_reason, delta.stop_sequence),
      });
    }
    if (isJsonObject(data.usage)) {
      this.#updateUsage(data.usage);
      emit({ type: 'usage', usage: this.#currentUsage() });
    }
  }

  /** Cumulative counts replace the running ones; absent or null fields keep their value. */
  #updateUsage(usage: JsonObject): void {
    const running = this.#usage;
    running.inputTokens = count(usage.input_tokens) ?? running.inputTokens;
    running.outputTokens = count(usage.output_tokens) ?? running.outputTokens;
    running.cacheReadTokens = count(usage.cache_read_input_tokens) ?? running.cacheReadTokens;
    running.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? running.cacheWriteTokens;
    running.reasoningTokens = thinkingTokens(usage) ?? running.reasoningTokens;
  }

  #currentUsage(): Usage {
    const running = this.#usage;
    const usage: Usage = {
      inputTokens: running.inputTokens + running.cacheReadTokens + running.cacheWriteTokens,
      outputTokens: running.outputTokens,
      cacheReadTokens: running.cacheReadTokens,
      cacheWriteTokens: running.cacheWriteTokens,
    };
    if (running.reasoningTokens !== undefined) usage.reasoningTokens = running.reasoningTokens;
    return usage;
  }

  #fail(error: GatewayError, emit: EmitStreamEvent): void {
    this.#start(emit, {});
    this.#done = true;
    emit({ type: 'error', error });
  }
}

function hasKeys(object: JsonObject): boolean {
  for (const _key in object) return true;
  return false;
}

export function createStreamDecoder(context: DecodeContext): StreamDecoder {
  return new BetaStreamDecoder(context);
}
