/**
 * Ledger rows for one settled request: one per upstream attempt. The request's usage and cost sit
 * on its final row, the attempt that delivered the answer (for an `n` fan-out, whose calls answer
 * together, the summed usage sits on one of them); earlier failed attempts carry their status and
 * no tokens. A request refused before any attempt gets one row, attempt 0.
 */
import type { ChatCall } from '../gateway/chat-call.ts';
import type { Delivery, DeliveryResult } from '../gateway/delivery.ts';
import type { PreparedRequest } from '../gateway/prepare-request.ts';
import type { ModelPricing } from '../config/catalog.ts';
import { GatewayError, type Usage } from '../ir/index.ts';
import { costUsd } from '../config/cost.ts';
import { deliveredOutputTokens } from './delivered-usage.ts';
import type { LedgerOutcome, LedgerRow } from './ledger.ts';
import type { RequestContext } from './request-context.ts';

/** The row of a request refused after its body was read, before any attempt. */
export function refusalRow(
  call: ChatCall,
  prepared: PreparedRequest,
  context: RequestContext,
  error: GatewayError,
  now: number,
): LedgerRow {
  const { entry, request } = prepared;
  return rejectedRow(
    call.clientId,
    entry,
    request.stream,
    call.surface.encodeError(error).status,
    context,
    error,
    now,
  );
}

/** What a settled request is charged for (see `accountDelivery`). */
export interface Accounted {
  usage: Usage | undefined;
  costUsd: number;
  /** Counted by the gateway from what the client received, not reported by the upstream. */
  estimated: boolean;
}

/**
 * The usage and cost to record: the upstream's figures when the answer completed; for a stream
 * cut short, at least the prompt (as counted before the call) and the output the client received.
 */
export function accountDelivery(
  call: ChatCall,
  context: RequestContext,
  delivery: Delivery | undefined,
  promptTokens: number,
  pricingOf: (model: string) => ModelPricing | undefined,
): Accounted {
  if (delivery === undefined) return { usage: undefined, costUsd: 0, estimated: false };
  if (delivery.completed || !delivery.stream)
    return { usage: delivery.usage, costUsd: delivery.costUsd ?? 0, estimated: false };
  const reported = delivery.usage;
  const deliveredTokens =
    delivery.deliveredText === undefined ? 0 : deliveredOutputTokens(delivery.deliveredText());
  const usage: Usage = {
    inputTokens: Math.max(reported?.inputTokens ?? 0, promptTokens),
    outputTokens: Math.max(reported?.outputTokens ?? 0, deliveredTokens),
    cacheReadTokens: reported?.cacheReadTokens ?? 0,
    cacheWriteTokens: reported?.cacheWriteTokens ?? 0,
  };
  const estimated =
    usage.inputTokens !== reported?.inputTokens || usage.outputTokens !== reported.outputTokens;
  if (!estimated) return { usage, costUsd: delivery.costUsd ?? 0, estimated };
  const pricing = pricingOf(delivery.servedBy);
  return {
    usage,
    costUsd: pricing === undefined ? (delivery.costUsd ?? 0) : costUsd(usage, pricing),
    estimated,
  };
}

/**
 * Every row is one literal with the keys in `LedgerRow`'s order (no base row spread into it): no
 * intermediate objects, and rows of every kind share one shape, so what reads them (metrics, the
 * ledger's hand-off, the rollups) reads each field at one place.
 */
export function ledgerRows(
  call: ChatCall,
  prepared: PreparedRequest,
  context: RequestContext,
  result: DeliveryResult,
  accounted: Accounted,
): LedgerRow[] {
  const { timeline, requestId, surface, traceId } = context;
  const keyId = call.clientId;
  const stream = prepared.request.stream;
  const delivery = result.delivered ? result : undefined;
  // Why the answer did not complete, or why there was none.
  const failure = result.error;
  const aborted = call.signal.aborted;
  const outcome: LedgerOutcome = delivery?.completed === true ? 'ok' : aborted ? 'aborted' : 'failed';
  const status =
    delivery !== undefined || call.sink.started
      ? 200
      : call.surface.encodeError(failure ?? new GatewayError('internal', 'internal error')).status;
  const usage = accounted.usage;
  const now = performance.now();
  const error = outcome === 'ok' ? undefined : aborted ? abortReason(call.signal) : failure?.kind;
  const promptTokens = usage?.inputTokens ?? 0;
  const cachedTokens = usage?.cacheReadTokens ?? 0;
  const cacheWriteTokens = usage?.cacheWriteTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const reasoningTokens = usage?.reasoningTokens ?? 0;
  const latencyMs = (timeline.endedAt ?? now) - timeline.receivedAt;
  const ttftMs = timeline.firstByteAt === undefined ? undefined : timeline.firstByteAt - timeline.receivedAt;
  const overheadMs = timeline.overheadMs ?? timeline.elapsed(now);
  const attempts = result.records;
  if (attempts.length === 0) {
    return [
      {
        requestId,
        attempt: 0,
        final: true,
        createdAt: timeline.receivedAtMs,
        keyId,
        surface,
        model: prepared.entry.name,
        family: prepared.entry.family,
        upstreamModel: undefined,
        deployment: undefined,
        stream,
        status,
        upstreamStatus: undefined,
        outcome,
        error,
        promptTokens,
        cachedTokens,
        cacheWriteTokens,
        outputTokens,
        reasoningTokens,
        costUsd: accounted.costUsd,
        usageEstimated: accounted.estimated,
        latencyMs,
        ttftMs,
        overheadMs,
        traceId,
      },
    ];
  }
  // The call that answered carries the request's usage (the last one: a fan-out answers with all).
  let finalIndex = attempts.length - 1;
  for (let index = attempts.length - 1; index >= 0; index--) {
    if (attempts[index]?.answered === true) {
      finalIndex = index;
      break;
    }
  }
  // Earlier attempts carry their own status and error, no usage.
  return attempts.map((record, index): LedgerRow => {
    const final = index === finalIndex;
    return {
      requestId,
      attempt: index + 1,
      final,
      createdAt: record.startedAt,
      keyId,
      surface,
      model: record.model,
      family: record.family,
      upstreamModel: record.upstreamModel,
      deployment: record.deployment,
      stream,
      status,
      upstreamStatus: record.status,
      outcome: final || record.answered ? outcome : 'failed',
      error: final ? (error ?? record.error) : record.answered ? error : (record.error ?? 'upstream'),
      promptTokens: final ? promptTokens : 0,
      cachedTokens: final ? cachedTokens : 0,
      cacheWriteTokens: final ? cacheWriteTokens : 0,
      outputTokens: final ? outputTokens : 0,
      reasoningTokens: final ? reasoningTokens : 0,
      costUsd: final ? accounted.costUsd : 0,
      usageEstimated: final ? accounted.estimated : false,
      latencyMs: final ? latencyMs : (record.latencyMs ?? 0),
      ttftMs: final ? ttftMs : undefined,
      overheadMs: final ? overheadMs : undefined,
      traceId,
    };
  });
}

/** `client_abort` when the client left, `shutdown` when a drain timed out. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === 'string' ? reason : 'client_abort';
}

/**
 * The row of a request refused from its headers, before its body was read: written only when the
 * path named the model (the C surface), so the row says which model and family it was for.
 */
export const headerRefusalRow = rejectedRow;

/** A refused request's one row: attempt 0, no upstream, no tokens. */
function rejectedRow(
  keyId: string,
  entry: { name: string; family: string },
  stream: boolean,
  status: number,
  context: RequestContext,
  error: GatewayError,
  now: number,
): LedgerRow {
  const elapsed = context.timeline.elapsed();
  return {
    requestId: context.requestId,
    attempt: 0,
    final: true,
    createdAt: Math.min(now, context.timeline.receivedAtMs),
    keyId,
    surface: context.surface,
    model: entry.name,
    family: entry.family,
    upstreamModel: undefined,
    deployment: undefined,
    stream,
    status,
    upstreamStatus: undefined,
    outcome: 'rejected',
    error: error.kind,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    usageEstimated: false,
    latencyMs: elapsed,
    ttftMs: undefined,
    overheadMs: elapsed,
    traceId: context.traceId,
  };
}
