/**
 * Family C SSE (`data:` lines, each a full GenerateContentResponse with incremental parts, no
 * terminator) → canonical events. The stream is complete only once every candidate has sent a
 * `finishReason`: C ends by closing the connection, so a bare close is not success.
 */
import { emptyUsage, GatewayError, isJsonObject } from '../../ir/index.ts';
import type { JsonObject, StreamEvent, Usage } from '../../ir/index.ts';
import type { SseMessage } from '../../sse/parse-sse.ts';
import type { DecodeContext, EmitStreamEvent, StreamDecoder } from '../codec.ts';
import {
  blockedChoice,
  callId,
  candidateIndex,
  candidateParts,
  createdSeconds,
  decodeFunctionCall,
} from './decode-response.ts';
import { streamError } from './errors.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

/** Per candidate (choice): the next block index, the open text block (-1 when none), what it has seen. */
interface CandidateState {
  nextBlock: number;
  /** Calls seen so far (their ordinal names the synthesized id). */
  calls: number;
  openText: number;
  /** The open thought block (-1 when none) and the signature it closes with. */
  openThought: number;
  thoughtSignature: string | undefined;
  sawToolCall: boolean;
  finished: boolean;
}

export class GammaStreamDecoder implements StreamDecoder {
  readonly #context: DecodeContext;
  #started = false;
  /** An error event was emitted: nothing may follow it. */
  #failed = false;
  #usage: Usage = { ...emptyUsage };
  /** The response id: it names the calls' synthesized ids. */
  #id = '';
  readonly #candidates = new Map<number, CandidateState>();

  constructor(context: DecodeContext) {
    this.#context = context;
  }

  push(message: SseMessage, emit: EmitStreamEvent): void {
    if (this.#failed) return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(message.data);
    } catch {
      chunk = undefined;
    }
    if (!isJsonObject(chunk)) {
      this.#fail(
        new GatewayError('upstream', 'the upstream sent a stream chunk that is not a JSON object'),
        emit,
      );
      return;
    }
    if (isJsonObject(chunk.error)) {
      this.#fail(streamError(chunk.error), emit);
      return;
    }
    if (!this.#started) this.#start(chunk, emit);
    this.#pushCandidates(chunk, emit);
    if (chunk.usageMetadata !== undefined) {
      this.#usage = decodeUsage(chunk.usageMetadata);
      emit({ type: 'usage', usage: this.#usage });
    }
  }

  end(emit: EmitStreamEvent): void {
    if (this.#failed) return;
    let complete = this.#candidates.size > 0;
    for (const state of this.#candidates.values()) complete &&= state.finished;
    if (this.#started && complete) emit({ type: 'message-end', usage: this.#usage });
    else this.#fail(new GatewayError('upstream', 'upstream stream ended before completion'), emit);
  }

  #start(chunk: JsonObject, emit: EmitStreamEvent): void {
    this.#started = true;
    this.#id = typeof chunk.responseId === 'string' ? chunk.responseId : this.#context.generateId('gen_');
    const event: StreamEvent = {
      type: 'message-start',
      id: this.#id,
      model: typeof chunk.modelVersion === 'string' ? chunk.modelVersion : '',
      created: createdSeconds(chunk.createTime, this.#context),
    };
    // C repeats the running usage on every chunk: the first one already knows the prompt side,
    // which clients that read usage at the start (B's message_start) need.
    if (isJsonObject(chunk.usageMetadata)) event.usage = decodeUsage(chunk.usageMetadata);
    emit(event);
  }

  #fail(error: GatewayError, emit: EmitStreamEvent): void {
    this.#failed = true;
    emit({ type: 'error', error });
  }

  #pushCandidates(chunk: JsonObject, emit: EmitStreamEvent): void {
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    if (candidates.length === 0 && isJsonObject(chunk.promptFeedback) && !this.#candidates.has(0)) {
      // Blocked prompt: "sent only in the first stream chunk", with no candidates at all.
      const blocked = blockedChoice(chunk.promptFeedback);
      if (blocked.finishReason.unified === 'content-filter') {
        this.#candidates.set(0, {
          nextBlock: 0,
          calls: 0,
          openText: -1,
          openThought: -1,
          thoughtSignature: undefined,
          sawToolCall: false,
          finished: true,
        });
        emit({ type: 'finish', choice: 0, finishReason: blocked.finishReason });
      }
      return;
    }
    candidates.forEach((candidate, position) => {
      if (isJsonObject(candidate)) this.#pushCandidate(candidate, candidateIndex(candidate, position), emit);
    });
  }

  #pushCandidate(candidate: JsonObject, choice: number, emit: EmitStreamEvent): void {
    let state = this.#candidates.get(choice);
    if (state === undefined) {
      state = {
        nextBlock: 0,
        calls: 0,
        openText: -1,
        openThought: -1,
        thoughtSignature: undefined,
        sawToolCall: false,
        finished: false,
      };
      this.#candidates.set(choice, state);
    }
    if (state.finished) return;
    for (const part of candidateParts(candidate)) {
      if (!isJsonObject(part)) continue;
      if (part.thought === true) {
        thought(state, choice, part, emit);
        continue;
      }
      // The part right after a thought may carry its signature (it keeps its own too).
      if (state.openThought !== -1) state.thoughtSignature ??= signatureOf(part);
      if (typeof part.text === 'string' && part.text !== '') this.#text(state, choice, part.text, emit);
      else if (isJsonObject(part.functionCall)) this.#functionCall(state, choice, part.functionCall, emit);
    }
    if (typeof candidate.finishReason === 'string') {
      closeThought(state, choice, emit);
      closeText(state, choice, emit);
      state.finished = true;
      emit({
        type: 'finish',
        choice,
        finishReason: decodeFinishReason(candidate.finishReason, state.sawToolCall, candidate.finishMessage),
      });
    }
  }

  #text(state: CandidateState, choice: number, text: string, emit: EmitStreamEvent): void {
    closeThought(state, choice, emit);
    if (state.openText === -1) {
      state.openText = state.nextBlock++;
      emit({ type: 'text-start', choice, index: state.openText });
    }
    emit({ type: 'text-delta', choice, index: state.openText, text });
  }

  /** C sends each call whole (no argument fragments): start, one delta with all arguments, end. */
  #functionCall(state: CandidateState, choice: number, call: JsonObject, emit: EmitStreamEvent): void {
    closeThought(state, choice, emit);
    closeText(state, choice, emit);
    const part = decodeFunctionCall(call, callId(this.#id, choice, state.calls++));
    const index = state.nextBlock++;
    state.sawToolCall = true;
    emit({ type: 'tool-call-start', choice, index, id: part.id, name: part.name });
    emit({ type: 'tool-call-delta', choice, index, argumentsDelta: part.arguments });
    emit({ type: 'tool-call-end', choice, index });
  }
}

/** A `thought: true` part: a thought block opens (or goes on); its signature waits for its end. */
function thought(state: CandidateState, choice: number, part: JsonObject, emit: EmitStreamEvent): void {
  if (state.openThought === -1) {
    closeText(state, choice, emit);
    state.openThought = state.nextBlock++;
    emit({ type: 'reasoning-start', choice, index: state.openThought });
  }
  if (typeof part.text === 'string' && part.text !== '')
    emit({ type: 'reasoning-delta', choice, index: state.openThought, text: part.text });
  state.thoughtSignature ??= signatureOf(part);
}

function signatureOf(part: JsonObject): string | undefined {
  return typeof part.thoughtSignature === 'string' && part.thoughtSignature !== ''
    ? part.thoughtSignature
    : undefined;
}

function closeThought(state: CandidateState, choice: number, emit: EmitStreamEvent): void {
  if (state.openThought === -1) return;
  const index = state.openThought;
  const signature = state.thoughtSignature;
  state.openThought = -1;
  state.thoughtSignature = undefined;
  emit(
    signature === undefined
      ? { type: 'reasoning-end', choice, index }
      : { type: 'reasoning-end', choice, index, signature },
  );
}

function closeText(state: CandidateState, choice: number, emit: EmitStreamEvent): void {
  if (state.openText === -1) return;
  const event: StreamEvent = { type: 'text-end', choice, index: state.openText };
  state.openText = -1;
  emit(event);
}

export function createStreamDecoder(context: DecodeContext): StreamDecoder {
  return new GammaStreamDecoder(context);
}
