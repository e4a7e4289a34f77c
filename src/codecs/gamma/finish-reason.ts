/** Family C `finishReason` ↔ unified finish reasons (both directions). */
import type { FinishReason, UnifiedFinishReason } from '../../ir/index.ts';

/** Every C value and what it means. C has no tool-call reason: calls end with STOP (see `decodeFinishReason`). */
const fromGamma = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  CONTINUATION: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  IMAGE_RECITATION: 'content-filter',
  // The model produced an unusable call: no client family has a value for it, so surface it as an error.
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  OTHER: 'other',
  LANGUAGE: 'other',
  NO_IMAGE: 'other',
  IMAGE_OTHER: 'other',
  FINISH_REASON_UNSPECIFIED: 'other',
} as const satisfies Record<string, UnifiedFinishReason>;

const toGamma = {
  stop: 'STOP',
  'tool-calls': 'STOP',
  length: 'MAX_TOKENS',
  'content-filter': 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
} as const satisfies Record<UnifiedFinishReason, string>;

function isGammaReason(raw: string): raw is keyof typeof fromGamma {
  return Object.hasOwn(fromGamma, raw);
}

/**
 * `hasToolCalls`: the candidate holds functionCall parts, which turns STOP into `tool-calls`.
 * `finishMessage`: the candidate's; the family has no field naming the stop sequence that ended
 * a candidate, so the gateway writes it there in one fixed form (`stopSequenceMessage`) and reads
 * back only that form.
 */
export function decodeFinishReason(
  raw: string,
  hasToolCalls: boolean,
  finishMessage?: unknown,
): FinishReason {
  const unified: UnifiedFinishReason = isGammaReason(raw) ? fromGamma[raw] : 'other';
  const reason: FinishReason = { unified: unified === 'stop' && hasToolCalls ? 'tool-calls' : unified, raw };
  const stopSequence = reason.unified === 'stop' ? stopSequenceIn(finishMessage) : undefined;
  if (stopSequence !== undefined) reason.stopSequence = stopSequence;
  return reason;
}

const stopSequencePrefix = 'Stopped at the stop sequence ';

/** `Stopped at the stop sequence "END"`: the sequence as a JSON string, so any text reads back exactly. */
function stopSequenceMessage(sequence: string): string {
  return stopSequencePrefix + JSON.stringify(sequence);
}

function stopSequenceIn(message: unknown): string | undefined {
  if (typeof message !== 'string' || !message.startsWith(stopSequencePrefix)) return undefined;
  try {
    const sequence: unknown = JSON.parse(message.slice(stopSequencePrefix.length));
    return typeof sequence === 'string' ? sequence : undefined;
  } catch {
    return undefined;
  }
}

/** A candidate's end: its `finishReason`, and the stop sequence that ended it when known. */
export function encodeFinish(reason: FinishReason): { finishReason: string; finishMessage?: string } {
  const finishReason = encodeFinishReason(reason);
  return reason.unified === 'stop' && reason.stopSequence !== undefined
    ? { finishReason, finishMessage: stopSequenceMessage(reason.stopSequence) }
    : { finishReason };
}

/** A C raw value passes through unchanged (same-family output); other families' values are mapped. */
export function encodeFinishReason(reason: FinishReason): string {
  if (reason.raw !== undefined && isGammaReason(reason.raw)) return reason.raw;
  return toGamma[reason.unified];
}
