/** Converse `stopReason` ↔ IR finish reason (both directions). */
import type { FinishReason, UnifiedFinishReason } from '../../ir/index.ts';
import type { ConverseStopReason } from './wire.ts';

const unifiedByStopReason = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
  model_context_window_exceeded: 'length',
} as const satisfies Record<ConverseStopReason, UnifiedFinishReason>;

const stopReasonByUnified = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'content_filtered',
  error: 'end_turn',
  other: 'end_turn',
} as const satisfies Record<UnifiedFinishReason, ConverseStopReason>;

function isConverseStopReason(value: string): value is ConverseStopReason {
  return Object.hasOwn(unifiedByStopReason, value);
}

export function decodeFinishReason(stopReason: unknown): FinishReason {
  if (typeof stopReason !== 'string') return { unified: 'other' };
  return {
    unified: isConverseStopReason(stopReason) ? unifiedByStopReason[stopReason] : 'other',
    raw: stopReason,
  };
}

/** A Converse raw value is kept as is; otherwise mapped from the unified value. */
export function encodeStopReason(reason: FinishReason): ConverseStopReason {
  if (reason.raw !== undefined && isConverseStopReason(reason.raw)) return reason.raw;
  if (reason.unified === 'stop' && reason.stopSequence !== undefined) return 'stop_sequence';
  return stopReasonByUnified[reason.unified];
}
