/**
 * The SSE body of a streamed reply: canonical events through the family's stream encoder, one body
 * chunk per token (structural events ride along with the next token), paced by the configured
 * delays, with the stream faults applied. Stops as soon as the signal aborts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamEncoder } from '../codecs/codec.ts';
import { GatewayError, type StreamEvent } from '../ir/index.ts';

export interface StreamPacing {
  timeToFirstTokenMs: number;
  interTokenDelayMs: number;
}

export interface StreamFaults {
  errorAfter: number | undefined;
  cutAfter: number | undefined;
}

export interface StreamCounters {
  activeStreams: number;
  tokensGenerated: number;
}

export interface StreamOptions {
  pacing: StreamPacing;
  faults: StreamFaults;
  counters: StreamCounters;
  /** The caller's signal. */
  signal: AbortSignal;
  /** The response's own `cancel()`. */
  cancelSignal: AbortSignal;
}

/**
 * Two abort signals checked as one. `AbortSignal.any` is costly per stream (weak refs, listeners),
 * so the combined signal is built only when a timer needs one.
 */
class EitherSignal {
  readonly #first: AbortSignal;
  readonly #second: AbortSignal;
  #combined: AbortSignal | undefined;

  constructor(first: AbortSignal, second: AbortSignal) {
    this.#first = first;
    this.#second = second;
  }

  get aborted(): boolean {
    return this.#first.aborted || this.#second.aborted;
  }

  combined(): AbortSignal {
    this.#combined ??= AbortSignal.any([this.#first, this.#second]);
    return this.#combined;
  }
}

interface BodyState {
  buffer: string;
  tokens: number;
}

export async function* streamBody(
  events: Iterable<StreamEvent>,
  encoder: StreamEncoder,
  options: StreamOptions,
): AsyncGenerator<string> {
  const { pacing, faults, counters } = options;
  const signal = new EitherSignal(options.signal, options.cancelSignal);
  const state: BodyState = { buffer: '', tokens: 0 };
  counters.activeStreams++;
  try {
    for (const event of events) {
      if (signal.aborted) return;
      const limit = faults.errorAfter ?? faults.cutAfter;
      if (limit !== undefined && state.tokens >= limit && isTokenOrEnding(event)) {
        if (faults.errorAfter !== undefined)
          state.buffer += encoder.encode({ type: 'error', error: streamError(state.tokens) });
        if (state.buffer !== '') yield state.buffer;
        return;
      }
      if (!isToken(event)) {
        state.buffer += encoder.encode(event);
        continue;
      }
      const delay = state.tokens === 0 ? pacing.timeToFirstTokenMs : pacing.interTokenDelayMs;
      if (delay > 0 && !(await pause(delay, signal.combined()))) return;
      state.buffer += encoder.encode(event);
      state.tokens++;
      counters.tokensGenerated++;
      const chunk = state.buffer;
      state.buffer = '';
      if (chunk !== '') yield chunk;
    }
    if (state.buffer !== '' && !signal.aborted) yield state.buffer;
  } finally {
    counters.activeStreams--;
  }
}

function isToken(event: StreamEvent): boolean {
  return event.type === 'text-delta' || event.type === 'tool-call-delta' || event.type === 'reasoning-delta';
}

function isTokenOrEnding(event: StreamEvent): boolean {
  return isToken(event) || event.type === 'finish' || event.type === 'usage' || event.type === 'message-end';
}

function streamError(tokens: number): GatewayError {
  return new GatewayError(
    'overloaded',
    `simulated stream error after ${tokens} tokens (x-simulate-stream-error-after)`,
  );
}

/** Wait `ms`; false when the signal aborted meanwhile. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  // The hot path (no delays configured) must not touch the timer queue at all.
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
