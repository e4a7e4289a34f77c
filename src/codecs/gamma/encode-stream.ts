/**
 * Canonical events → Family C SSE for a surface client: `data:` lines only, each a complete
 * GenerateContentResponse with incremental parts. Calls are buffered and sent whole (C never
 * fragments arguments), in the order the blocks started; the last chunk carries every candidate's
 * finishReason and the usage.
 */
import type { GatewayError, StreamEvent } from '../../ir/index.ts';
import { sseData } from '../../sse/write-sse.ts';
import type { ResponseContext, StreamEncoder } from '../codec.ts';
import { encodeErrorBody } from './errors.ts';
import { encodeFinish } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import { BlockSequencer, isBlockEvent, type BlockEvent } from '../shared/block-sequencer.ts';
import { functionCall, thoughtPart } from './encode-response.ts';
import type { GammaCandidate, GammaPart, GammaUsageMetadata } from './wire.ts';

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

export class GammaStreamEncoder implements StreamEncoder {
  readonly #model: string;
  #id = '';
  /** Running total to repeat on every chunk, as the family does; undefined until the first usage. */
  #usage: GammaUsageMetadata | undefined = undefined;
  /** An error chunk went out: the client stops reading there. */
  #failed = false;
  /** Calls being buffered, by `choice:index`. */
  readonly #calls = new Map<string, PendingCall>();
  /** Choices seen, with their C finish reason (and message) once known. */
  readonly #choices = new Map<number, ReturnType<typeof encodeFinish> | undefined>();
  readonly #sequencer = new BlockSequencer();

  constructor(context: ResponseContext) {
    this.#model = context.model;
  }

  encode(event: StreamEvent): string {
    if (this.#failed) return '';
    if (isBlockEvent(event)) {
      let text = '';
      this.#sequencer.add(event, (ready) => {
        text += this.#block(ready);
      });
      return text;
    }
    switch (event.type) {
      case 'message-start':
        this.#id = event.id;
        if (event.usage !== undefined) this.#usage = encodeUsage(event.usage);
        return '';
      case 'finish': {
        let text = '';
        this.#sequencer.flush(event.choice, (ready) => {
          text += this.#block(ready);
        });
        this.#choices.set(event.choice, encodeFinish(event.finishReason));
        return text;
      }
      case 'usage':
        this.#usage = encodeUsage(event.usage);
        return '';
      case 'reasoning-start':
        this.#see(event.choice);
        return '';
      case 'reasoning-delta':
        return event.text === '' ? '' : this.#chunk(event.choice, thoughtPart(event.text, undefined));
      case 'reasoning-end':
        // The signature closes the thought: an empty thought part carries it.
        return event.signature === undefined
          ? ''
          : this.#chunk(event.choice, thoughtPart('', event.signature));
      case 'message-end':
        this.#usage = encodeUsage(event.usage);
        return this.#final();
      case 'error':
        return this.#error(event.error);
    }
  }

  /** One block event, in part order (the sequencer holds blocks a source interleaved). */
  #block(event: BlockEvent): string {
    if (this.#failed) return '';
    switch (event.type) {
      case 'text-start':
      case 'text-end':
        this.#see(event.choice);
        return '';
      case 'text-delta':
        return event.text === '' ? '' : this.#chunk(event.choice, { text: event.text });
      case 'tool-call-start':
        this.#see(event.choice);
        this.#calls.set(`${event.choice}:${event.index}`, { id: event.id, name: event.name, args: '' });
        return '';
      case 'tool-call-delta': {
        const call = this.#calls.get(`${event.choice}:${event.index}`);
        if (call !== undefined) call.args += event.argumentsDelta;
        return '';
      }
      case 'tool-call-end':
        return this.#endCall(event.choice, event.index);
    }
  }

  #see(choice: number): void {
    if (!this.#choices.has(choice)) this.#choices.set(choice, undefined);
  }

  #endCall(choice: number, index: number): string {
    const key = `${choice}:${index}`;
    const call = this.#calls.get(key);
    if (call === undefined) return '';
    this.#calls.delete(key);
    try {
      return this.#chunk(choice, { functionCall: functionCall(call.id, call.name, call.args) });
    } catch (error) {
      return this.#error(error as GatewayError);
    }
  }

  #chunk(choice: number, part: GammaPart): string {
    this.#see(choice);
    const candidate: GammaCandidate = { content: { role: 'model', parts: [part] }, index: choice };
    return this.#response([candidate]);
  }

  #response(candidates: GammaCandidate[]): string {
    const body =
      this.#usage === undefined
        ? { candidates, modelVersion: this.#model, responseId: this.#id }
        : { candidates, usageMetadata: this.#usage, modelVersion: this.#model, responseId: this.#id };
    return sseData(JSON.stringify(body));
  }

  /** The family's closing chunk: an empty text part per candidate with its finishReason, plus usage. */
  #final(): string {
    if (this.#choices.size === 0) this.#choices.set(0, undefined);
    const choices = [...this.#choices.keys()].sort((left, right) => left - right);
    const candidates = choices.map((choice): GammaCandidate => ({
      content: { role: 'model', parts: [{ text: '' }] },
      ...(this.#choices.get(choice) ?? { finishReason: 'STOP' }),
      index: choice,
    }));
    return this.#response(candidates);
  }

  #error(error: GatewayError): string {
    this.#failed = true;
    return sseData(JSON.stringify(encodeErrorBody(error)));
  }
}

export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  return new GammaStreamEncoder(context);
}
