/**
 * Ledger rows for one settled request: one per upstream attempt. The request's usage and cost sit
 * on its final row, the attempt that delivered the answer (for an `n` fan-out, whose calls answer
 * together, the summed usage sits on one of them); earlier failed attempts carry their status and
 * no tokens. A request refused before any attempt gets one row, attempt 0.
 */
import type { RequestContext } from '../gateway/admission.ts';
import type { ChatCall } from '../gateway/chat-call.ts';
import type { Delivery } from '../gateway/deliver.ts';
import type { PreparedRequest } from '../gateway/prepare-request.ts';
import { GatewayError } from '../ir/index.ts';
import type { LedgerOutcome, LedgerRow } from './ledger.ts';

export function refusalRow(
  call: ChatCall,
  prepared: PreparedRequest,
  context: RequestContext,
  error: GatewayError,
  now: number,
): LedgerRow {
  const elapsed = context.timeline.elapsed();
  return {
    ...baseRow(call, prepared, context),
    attempt: 0,
    final: true,
    createdAt: Math.min(now, context.timeline.receivedAtMs),
    upstreamModel: undefined,
    deployment: undefined,
    status: call.surface.encodeError(error).status,
    upstreamStatus: undefined,
    outcome: 'rejected',
    error: error.kind,
    latencyMs: elapsed,
    ttftMs: undefined,
    overheadMs: elapsed,
  };
}

export function ledgerRows(
  call: ChatCall,
  prepared: PreparedRequest,
  context: RequestContext,
  delivery: Delivery | undefined,
  error: unknown,
): LedgerRow[] {
  const { timeline } = context;
  const base = baseRow(call, prepared, context);
  const failure = delivery?.error ?? (delivery === undefined ? asGatewayError(error) : undefined);
  const aborted = call.signal.aborted;
  const outcome: LedgerOutcome = delivery?.completed === true ? 'ok' : aborted ? 'aborted' : 'failed';
  const status =
    delivery !== undefined || call.sink.started
      ? 200
      : call.surface.encodeError(failure ?? new GatewayError('internal', 'internal error')).status;
  const usage = delivery?.usage;
  const now = performance.now();
  const final = {
    status,
    outcome,
    error: outcome === 'ok' ? undefined : aborted ? abortReason(call.signal) : failure?.kind,
    promptTokens: usage?.inputTokens ?? 0,
    cachedTokens: usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    costUsd: delivery?.costUsd ?? 0,
    latencyMs: (timeline.endedAt ?? now) - timeline.receivedAt,
    ttftMs: timeline.firstByteAt === undefined ? undefined : timeline.firstByteAt - timeline.receivedAt,
    overheadMs: timeline.overheadMs ?? timeline.elapsed(now),
  };
  const attempts = timeline.attempts;
  if (attempts.length === 0) {
    return [
      {
        ...base,
        ...final,
        attempt: 0,
        final: true,
        createdAt: timeline.receivedAtMs,
        upstreamModel: undefined,
        deployment: undefined,
        upstreamStatus: undefined,
      },
    ];
  }
  // The call that answered carries the request's usage (the last one: a fan-out answers with all).
  let finalIndex = attempts.length - 1;
  for (let index = attempts.length - 1; index >= 0; index--) {
    if (attempts[index]?.record.answered === true) {
      finalIndex = index;
      break;
    }
  }
  return attempts.map((attempt, index): LedgerRow => {
    const { record } = attempt;
    const row = {
      ...base,
      attempt: index + 1,
      createdAt: record.startedAt,
      model: record.model,
      family: record.family,
      upstreamModel: record.upstreamModel,
      deployment: record.deployment,
      upstreamStatus: record.status,
    };
    if (index === finalIndex) return { ...row, ...final, error: final.error ?? record.error, final: true };
    return {
      ...row,
      final: false,
      status,
      outcome: record.answered ? outcome : 'failed',
      error: record.answered ? final.error : (record.error ?? 'upstream'),
      promptTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      latencyMs: attempt.endedAt - attempt.sentAt,
      ttftMs: undefined,
      overheadMs: undefined,
    };
  });
}

type BaseRow = Pick<LedgerRow, 'requestId' | 'keyId' | 'surface' | 'model' | 'family' | 'stream'> &
  Pick<LedgerRow, 'promptTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'outputTokens' | 'costUsd'>;

function baseRow(call: ChatCall, prepared: PreparedRequest, context: RequestContext): BaseRow {
  return {
    requestId: context.requestId,
    keyId: call.clientId,
    surface: context.surface,
    model: prepared.entry.name,
    family: prepared.entry.family,
    stream: prepared.request.stream,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}

function asGatewayError(error: unknown): GatewayError | undefined {
  if (error === undefined) return undefined;
  return error instanceof GatewayError ? error : new GatewayError('internal', 'internal error');
}

/** `client_abort` when the client left, `shutdown` when a drain timed out. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === 'string' ? reason : 'client_abort';
}
