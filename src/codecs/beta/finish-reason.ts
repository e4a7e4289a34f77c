/** B `stop_reason` ↔ IR finish reason (both directions). */
import type { FinishReason, UnifiedFinishReason } from '../../ir/index.ts';
import type { BetaStopReason } from './wire.ts';

const unifiedByStopReason = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
  // A long server-tool turn paused; other families have no continuation, so it reads as a stop.
  pause_turn: 'stop',
  model_context_window_exceeded: 'length',
} as const satisfies Record<BetaStopReason, UnifiedFinishReason>;

const stopReasonByUnified = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  error: 'end_turn',
  other: 'end_turn',
} as const satisfies Record<UnifiedFinishReason, BetaStopReason>;

function isBetaStopReason(value: string): value is BetaStopReason {
  return Object.hasOwn(unifiedByStopReason, value);
}

export function decodeFinishReason(stopReason: unknown, stopSequence: unknown): FinishReason {
  if (typeof stopReason !== 'string') return { unified: 'other' };
  const unified = isBetaStopReason(stopReason) ? unifiedByStopReason[stopReason] : 'other';
  const reason: FinishReason = { unified, raw: stopReason };
  if (typeof stopSequence === 'string') reason.stopSequence = stopSequence;
  return reason;
}

/** A B raw value is kept as is (same-family output); otherwise mapped from the unified value. */
export function encodeStopReason(reason: FinishReason): BetaStopReason {
  if (reason.raw !== undefined && isBetaStopReason(reason.raw)) return reason.raw;
  if (reason.unified === 'stop' && reason.stopSequence !== undefined) return 'stop_sequence';
  return stopReasonByUnified[reason.unified];
}

export function encodeStopSequence(reason: FinishReason): string | null {
  return reason.stopSequence ?? null;
}
