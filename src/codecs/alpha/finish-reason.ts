/** A `finish_reason` ↔ unified finish reason. */
import type { FinishReason, UnifiedFinishReason } from '../../ir/index.ts';
import type { AlphaFinishReason } from './wire.ts';

/** A Map, not an object literal: upstream strings such as `constructor` must not hit the prototype. */
const unifiedByAlpha: ReadonlyMap<string, UnifiedFinishReason> = new Map([
  ['stop', 'stop'],
  ['length', 'length'],
  ['tool_calls', 'tool-calls'],
  ['function_call', 'tool-calls'],
  ['content_filter', 'content-filter'],
]);

/** A has no value for `error`/`other`; `stop` is what A clients handle without surprise. */
const alphaByUnified = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  error: 'stop',
  other: 'stop',
} as const satisfies Record<UnifiedFinishReason, AlphaFinishReason>;

/**
 * Some OpenAI-compatible servers (Ollama, llama.cpp) say `stop` after emitting tool calls; the
 * unified reason becomes `tool-calls` so other families' clients know a tool turn follows.
 * `stopReason` is a choice's `stop_reason`: OpenAI-compatible servers (vLLM, SGLang) name there
 * the stop string that ended a `stop` choice; OpenAI sends none, and then none is known.
 */
export function decodeFinishReason(raw: unknown, hasToolCalls: boolean, stopReason?: unknown): FinishReason {
  if (typeof raw !== 'string') return { unified: hasToolCalls ? 'tool-calls' : 'other' };
  let unified = unifiedByAlpha.get(raw) ?? 'other';
  if (unified === 'stop' && hasToolCalls) unified = 'tool-calls';
  const reason: FinishReason = { unified, raw };
  if (unified === 'stop' && typeof stopReason === 'string') reason.stopSequence = stopReason;
  return reason;
}

/** The stop string that ended a choice, as those servers say it in `stop_reason` (undefined when none is known). */
export function stopSequenceOf(reason: FinishReason): string | undefined {
  return reason.unified === 'stop' ? reason.stopSequence : undefined;
}

/** The stop string that ended a choice, as those servers say it (`{}` when none is known). */
export function encodeStopReason(reason: FinishReason): { stop_reason?: string } {
  const stopSequence = stopSequenceOf(reason);
  return stopSequence === undefined ? {} : { stop_reason: stopSequence };
}

export function encodeFinishReason(reason: FinishReason, legacyFunctions: boolean): AlphaFinishReason {
  const alpha = alphaByUnified[reason.unified];
  return alpha === 'tool_calls' && legacyFunctions ? 'function_call' : alpha;
}
