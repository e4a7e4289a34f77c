/**
 * Canonical events → the beta SSE a surface client expects. B has one choice (events of other
 * choices are ignored) and numbers its blocks 0, 1, 2… in order of appearance, one open at a time
 * (blocks a source interleaves are put one after another by the sequencer). `message_delta`
 * needs both the stop reason and the final usage, so `finish` is held until `message-end`.
 */
import type { ResponseContext, StreamEncoder } from '../codec.ts';
import type { FinishReason, StreamEvent, Usage } from '../../ir/index.ts';
import { emptyUsage, uncachedInputTokens } from '../../ir/index.ts';
import { sseEvent } from '../../sse/write-sse.ts';
import { BlockSequencer, isBlockEvent, type BlockEvent } from '../shared/block-sequencer.ts';
import { errorObject } from './errors.ts';
import { encodeStopReason, encodeStopSequence } from './finish-reason.ts';
import { messageId } from './encode-response.ts';
import { encodeUsage, withThinkingTokens } from './usage.ts';

interface EncoderState {
  /** IR block index (choice 0) → B block index, for blocks still open. */
  readonly open: Map<number, number>;
  nextIndex: number;
  finishReason: FinishReason | undefined;
}

export class BetaStreamEncoder implements StreamEncoder {
  readonly #context: ResponseContext;
  readonly #state: EncoderState = { open: new Map(), nextIndex: 0, finishReason: undefined };
  readonly #sequencer = new BlockSequencer();

  constructor(context: ResponseContext) {
    this.#context = context;
  }

  encode(event: StreamEvent): string {
    if ('choice' in event && event.choice !== 0) return '';
    if (isBlockEvent(event)) {
      let text = '';
      this.#sequencer.add(event, (ready) => {
        text += this.#block(ready);
      });
      return text;
    }
    switch (event.type) {
      case 'message-start':
        return this.#messageStart(event.id, event.usage ?? emptyUsage);
      case 'finish':
        this.#state.finishReason = event.finishReason;
        return this.#closeAll();
      case 'usage':
        // B reports usage once, cumulatively, in `message_delta`: the final totals suffice.
        return '';
      case 'reasoning-start':
        return this.#blockStart(event.index, '{"type":"thinking","thinking":"","signature":""}');
      case 'reasoning-delta':
        return this.#blockDelta(
          event.index,
          `{"type":"thinking_delta","thinking":${JSON.stringify(event.text)}}`,
        );
      case 'reasoning-end': {
        const signature =
          event.signature === undefined
            ? ''
            : this.#blockDelta(
                event.index,
                `{"type":"signature_delta","signature":${JSON.stringify(event.signature)}}`,
              );
        return signature + this.#blockStop(event.index);
      }
      case 'message-end':
        return this.#closeAll() + this.#messageEnd(event.usage);
      case 'error':
        return sseEvent('error', JSON.stringify({ type: 'error', error: errorObject(event.error) }));
    }
  }

  /** One block event, in B order (the sequencer guarantees one open block at a time). */
  #block(event: BlockEvent): string {
    switch (event.type) {
      case 'text-start':
        return this.#blockStart(event.index, '{"type":"text","text":""}');
      case 'tool-call-start':
        return this.#blockStart(
          event.index,
          JSON.stringify({ type: 'tool_use', id: event.id, name: event.name, input: {} }),
        );
      case 'text-delta':
        return this.#blockDelta(event.index, `{"type":"text_delta","text":${JSON.stringify(event.text)}}`);
      case 'tool-call-delta':
        return this.#blockDelta(
          event.index,
          `{"type":"input_json_delta","partial_json":${JSON.stringify(event.argumentsDelta)}}`,
        );
      case 'text-end':
      case 'tool-call-end':
        return this.#blockStop(event.index);
    }
  }

  #messageStart(id: string, usage: Usage): string {
    const message = {
      id: messageId(id),
      type: 'message',
      role: 'assistant',
      model: this.#context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: encodeUsage(usage),
    };
    return sseEvent('message_start', JSON.stringify({ type: 'message_start', message }));
  }

  #blockStart(index: number, contentBlock: string): string {
    if (this.#state.open.has(index)) return '';
    const wireIndex = this.#state.nextIndex++;
    this.#state.open.set(index, wireIndex);
    return sseEvent(
      'content_block_start',
      `{"type":"content_block_start","index":${wireIndex},"content_block":${contentBlock}}`,
    );
  }

  #blockDelta(index: number, delta: string): string {
    const wireIndex = this.#state.open.get(index);
    if (wireIndex === undefined) return '';
    return sseEvent(
      'content_block_delta',
      `{"type":"content_block_delta","index":${wireIndex},"delta":${delta}}`,
    );
  }

  #blockStop(index: number): string {
    const wireIndex = this.#state.open.get(index);
    if (wireIndex === undefined) return '';
    this.#state.open.delete(index);
    return sseEvent('content_block_stop', `{"type":"content_block_stop","index":${wireIndex}}`);
  }

  /** B closes every block before `message_delta`; an upstream that did not is tidied here. */
  #closeAll(): string {
    let text = '';
    this.#sequencer.flush(0, (ready) => {
      text += this.#block(ready);
    });
    for (const index of [...this.#state.open.keys()]) text += this.#blockStop(index);
    return text;
  }

  #messageEnd(usage: Usage): string {
    const finishReason = this.#state.finishReason ?? { unified: 'stop' };
    const delta = {
      stop_reason: encodeStopReason(finishReason),
      stop_sequence: encodeStopSequence(finishReason),
    };
    const wireUsage = withThinkingTokens(
      {
        output_tokens: usage.outputTokens,
        input_tokens: uncachedInputTokens(usage),
        cache_creation_input_tokens: usage.cacheWriteTokens,
        cache_read_input_tokens: usage.cacheReadTokens,
      },
      usage,
    );
    return (
      sseEvent('message_delta', JSON.stringify({ type: 'message_delta', delta, usage: wireUsage })) +
      sseEvent('message_stop', '{"type":"message_stop"}')
    );
  }
}

export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  return new BetaStreamEncoder(context);
}
