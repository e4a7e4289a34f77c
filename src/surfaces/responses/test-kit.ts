/**
 * For this folder's tests: a Responses API stream read back into canonical events, to fold what
 * the encoder wrote (the gateway never reads its own stream back: the pipeline keeps what it
 * delivered as canonical values). It reads the events the encoder writes, by output index.
 */
import { GatewayError, isJsonObject, type JsonObject } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import type { DecodeContext, EmitStreamEvent, StreamDecoder } from '../../codecs/codec.ts';
import { decodeUsage } from './usage.ts';

function index(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

class ResponsesStreamDecoder implements StreamDecoder {
  #started = false;
  #ended = false;
  #calls = false;

  push(message: SseMessage, emit: EmitStreamEvent): void {
    if (this.#ended) return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (!isJsonObject(data)) return;
    this.#event(data, emit);
  }

  #event(data: JsonObject, emit: EmitStreamEvent): void {
    const response = isJsonObject(data.response) ? data.response : {};
    const item = isJsonObject(data.item) ? data.item : {};
    const at = index(data.output_index);
    switch (typeof data.type === 'string' ? data.type : '') {
      case 'response.created':
        this.#started = true;
        emit({
          type: 'message-start',
          id: text(response.id),
          model: text(response.model),
          created: index(response.created_at),
        });
        return;
      case 'response.output_item.added':
        if (item.type === 'message') emit({ type: 'text-start', choice: 0, index: at });
        else if (item.type === 'reasoning') emit({ type: 'reasoning-start', choice: 0, index: at });
        else if (item.type === 'function_call') {
          this.#calls = true;
          emit({
            type: 'tool-call-start',
            choice: 0,
            index: at,
            id: text(item.call_id),
            name: text(item.name),
          });
        }
        return;
      case 'response.output_text.delta':
        emit({ type: 'text-delta', choice: 0, index: at, text: text(data.delta) });
        return;
      case 'response.reasoning_text.delta':
        emit({ type: 'reasoning-delta', choice: 0, index: at, text: text(data.delta) });
        return;
      case 'response.function_call_arguments.delta':
        emit({ type: 'tool-call-delta', choice: 0, index: at, argumentsDelta: text(data.delta) });
        return;
      case 'response.output_item.done':
        if (item.type === 'message') emit({ type: 'text-end', choice: 0, index: at });
        else if (item.type === 'reasoning') emit({ type: 'reasoning-end', choice: 0, index: at });
        else if (item.type === 'function_call') emit({ type: 'tool-call-end', choice: 0, index: at });
        return;
      case 'response.completed':
      case 'response.incomplete': {
        this.#ended = true;
        const details = isJsonObject(response.incomplete_details) ? response.incomplete_details : {};
        const unified =
          details.reason === 'max_output_tokens'
            ? 'length'
            : details.reason === 'content_filter'
              ? 'content-filter'
              : this.#calls
                ? 'tool-calls'
                : 'stop';
        emit({ type: 'finish', choice: 0, finishReason: { unified } });
        emit({ type: 'message-end', usage: decodeUsage(response.usage) });
        return;
      }
      case 'response.failed':
      case 'error': {
        this.#ended = true;
        const error = isJsonObject(response.error) ? response.error : data;
        emit({
          type: 'error',
          error: new GatewayError('upstream', text(error.message) || 'the response failed'),
        });
        return;
      }
      default:
        return;
    }
  }

  end(emit: EmitStreamEvent): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#started) return;
    emit({
      type: 'error',
      error: new GatewayError('upstream', 'the stream ended before the response was complete'),
    });
  }
}

export function createStreamDecoder(_context: DecodeContext): StreamDecoder {
  return new ResponsesStreamDecoder();
}
