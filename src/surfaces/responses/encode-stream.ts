/**
 * Canonical events → the Responses API's stream: `event:` + `data:` per event (as the real API
 * sends them), `sequence_number` on each. The sequence is the one the SDKs and Codex parse:
 * `response.created`, `response.in_progress`; per output item `output_item.added`, its content
 * (`content_part.added`, `output_text.delta`…, `output_text.done`, `content_part.done`, or
 * `function_call_arguments.delta`…, `.done`, or `reasoning_text.delta`…, `.done`),
 * `output_item.done`; then `response.completed` (or
 * `response.incomplete`) with the whole response and usage, or `error` + `response.failed`.
 */
import type { FinishReason, GatewayError, StreamEvent, Usage } from '../../ir/index.ts';
import { sseEvent } from '../../sse/write-sse.ts';
import { errorBody } from '../../codecs/alpha/errors.ts';
import type { ResponseContext, StreamEncoder } from '../../codecs/codec.ts';
import { functionCallItem, reasoningItem } from './encode-response.ts';
import { namespacesOf, type NamespacedCall } from './namespaces.ts';
import { finalStatus, itemId, responseId, responseObject, type ResponseState } from './response-object.ts';
import type { MessageItem, OutputItem, OutputText } from './wire.ts';

/** An output item being streamed, by the IR block index of choice 0. */
interface OpenItem {
  outputIndex: number;
  item: OutputItem;
  /** JSON of the item id, written into every delta. */
  idJson: string;
}

export class ResponsesStreamEncoder implements StreamEncoder {
  readonly #context: ResponseContext;
  readonly #state: ResponseState;
  readonly #open = new Map<number, OpenItem>();
  #sequence = 0;
  #started = false;
  #finishReason: FinishReason | undefined;
  #ended = false;
  readonly #namespaces: ReadonlyMap<string, NamespacedCall> | undefined;

  constructor(context: ResponseContext) {
    this.#context = context;
    this.#namespaces = namespacesOf(context.turn?.body);
    this.#state = {
      id: context.turn?.id ?? '',
      createdAt: context.turn?.createdAt ?? 0,
      status: 'in_progress',
      output: [],
      usage: undefined,
    };
  }

  encode(event: StreamEvent): string {
    if (this.#ended) return '';
    // The Responses API has no candidates: only choice 0 is ever asked for.
    if ('choice' in event && event.choice !== 0) return '';
    switch (event.type) {
      case 'message-start':
        return this.#start(event.id, event.created);
      case 'text-start':
        return this.#textStart(event.index);
      case 'text-delta':
        return this.#delta(event.index, event.text, 'response.output_text.delta', ',"content_index":0');
      case 'reasoning-start':
        return this.#add(
          event.index,
          reasoningItem(itemId('rs', this.#state.id, this.#state.output.length), 'in_progress', ''),
        );
      case 'reasoning-delta':
        return this.#delta(event.index, event.text, 'response.reasoning_text.delta', ',"content_index":0');
      case 'tool-call-start':
        return this.#callStart(event.index, event.id, event.name);
      case 'tool-call-delta':
        return this.#delta(event.index, event.argumentsDelta, 'response.function_call_arguments.delta', '');
      case 'text-end':
      case 'tool-call-end':
      case 'reasoning-end':
        return this.#itemDone(event.index);
      case 'finish':
        this.#finishReason = event.finishReason;
        return '';
      case 'usage':
        this.#state.usage = event.usage;
        return '';
      case 'message-end':
        return this.#end(event.usage);
      case 'error':
        return this.#failed(event.error);
    }
  }

  #event(type: string, fields: Record<string, unknown>): string {
    const data = JSON.stringify({ type, sequence_number: this.#sequence++, ...fields });
    return sseEvent(type, data);
  }

  #snapshot(): ReturnType<typeof responseObject> {
    return responseObject(this.#state, this.#context);
  }

  #start(upstreamId: string, created: number): string {
    if (this.#started) return '';
    this.#started = true;
    this.#state.id = responseId(this.#context, upstreamId);
    if (this.#context.turn === undefined) this.#state.createdAt = created;
    const snapshot = this.#snapshot();
    return (
      this.#event('response.created', { response: snapshot }) +
      this.#event('response.in_progress', { response: snapshot })
    );
  }

  #add(index: number, item: OutputItem): string {
    const outputIndex = this.#state.output.length;
    this.#state.output.push(item);
    this.#open.set(index, { outputIndex, item, idJson: JSON.stringify(item.id) });
    return this.#event('response.output_item.added', { output_index: outputIndex, item: { ...item } });
  }

  #textStart(index: number): string {
    const outputIndex = this.#state.output.length;
    const item: MessageItem = {
      id: itemId('msg', this.#state.id, outputIndex),
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    const part: OutputText = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    const added = this.#add(index, item);
    item.content.push(part);
    return (
      added +
      this.#event('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: { ...part },
      })
    );
  }

  #callStart(index: number, callId: string, name: string): string {
    const outputIndex = this.#state.output.length;
    const id = itemId('fc', this.#state.id, outputIndex);
    const item = functionCallItem(id, callId, name, '', this.#namespaces);
    item.status = 'in_progress';
    return this.#add(index, item);
  }

  /** The most frequent events, written without building and serialising an object. */
  #delta(index: number, delta: string, type: string, contentIndex: string): string {
    const open = this.#open.get(index);
    if (open === undefined || delta === '') return '';
    const { item } = open;
    if (item.type === 'function_call') item.arguments += delta;
    else {
      const part = item.content[0];
      if (part !== undefined) part.text += delta;
    }
    const logprobs = item.type === 'message' ? ',"logprobs":[]' : '';
    const data = `{"type":"${type}","sequence_number":${this.#sequence++},"item_id":${open.idJson},"output_index":${open.outputIndex}${contentIndex},"delta":${JSON.stringify(delta)}${logprobs}}`;
    return `event: ${type}\ndata: ${data}\n\n`;
  }

  #itemDone(index: number): string {
    const open = this.#open.get(index);
    if (open === undefined) return '';
    this.#open.delete(index);
    const { item, outputIndex } = open;
    item.status = 'completed';
    let text = '';
    if (item.type === 'message') {
      const part = item.content[0] ?? { type: 'output_text', text: '', annotations: [], logprobs: [] };
      const common = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      text +=
        this.#event('response.output_text.done', { ...common, text: part.text, logprobs: [] }) +
        this.#event('response.content_part.done', { ...common, part });
    } else if (item.type === 'reasoning') {
      const common = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      text += this.#event('response.reasoning_text.done', { ...common, text: item.content[0]?.text ?? '' });
    } else {
      text += this.#event('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: outputIndex,
        name: item.name,
        arguments: item.arguments,
      });
    }
    return text + this.#event('response.output_item.done', { output_index: outputIndex, item });
  }

  /** Items a decoder left open are closed first, so every `added` has its `done`. */
  #closeOpen(): string {
    let text = '';
    for (const index of [...this.#open.keys()]) text += this.#itemDone(index);
    return text;
  }

  #end(usage: Usage): string {
    const opening = this.#start('', 0);
    const closing = this.#closeOpen();
    this.#ended = true;
    this.#state.usage = usage;
    this.#state.status = finalStatus(this.#finishReason);
    this.#state.finishReason = this.#finishReason;
    const answer = this.#snapshot();
    this.#context.turn?.onFinished?.(answer);
    const type = answer.status === 'completed' ? 'response.completed' : 'response.incomplete';
    return opening + closing + this.#event(type, { response: answer });
  }

  #failed(error: GatewayError): string {
    const opening = this.#start('', 0);
    this.#ended = true;
    const body = errorBody(error).error;
    const code = body.code ?? body.type;
    this.#state.status = 'failed';
    this.#state.error = { code, message: body.message };
    return (
      opening +
      this.#event('error', { code, message: body.message, param: body.param }) +
      this.#event('response.failed', { response: this.#snapshot() })
    );
  }
}

export function createStreamEncoder(context: ResponseContext): ResponsesStreamEncoder {
  return new ResponsesStreamEncoder(context);
}
