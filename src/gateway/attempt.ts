/**
 * One planned upstream call: the request as the step's model and family take it — the prepared
 * request unchanged in the common case, re-decoded strictly and re-checked for a fallback or
 * another family, then encoded (or passed through) for the upstream.
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { UpstreamRequest, WireCodec } from '../codecs/codec.ts';
import { GatewayError, type ChatRequest, type JsonObject } from '../ir/index.ts';
import type { Step } from '../routing/attempt-plan.ts';
import type { ChatCall } from './chat-call.ts';
import type { PreparedRequest } from './prepare-request.ts';
import { checkContextWindow, promptTokensOf, validateAgainstCatalog } from './validate-request.ts';

/** One planned call: where it goes and the request as that model and family take it. */
export interface Attempt {
  step: Step;
  entry: ModelEntry;
  codec: WireCodec;
  request: ChatRequest;
  passThrough: boolean;
  /** Routing notes for the `warning` header (a fallback's lowered output cap). */
  notes: string[] | undefined;
  /** Upstream calls for the `n` candidates (1 unless the family returns one per call). */
  calls: number;
  upstreamRequest: UpstreamRequest;
}

/** The client's request decoded strictly (for translation), when the first decode was lenient. */
export interface StrictDecode {
  strictRequest: ChatRequest | GatewayError | undefined;
}

/**
 * The request as `step`'s model and family take it. The common case (the model itself, its own
 * family) is the prepared request unchanged. A fallback gets its catalog checks (its output cap
 * lowered to its maximum, with a note); a request it cannot take skips it (the error is returned).
 */
export function attemptFor(
  call: ChatCall,
  prepared: PreparedRequest,
  step: Step,
  strict: StrictDecode,
): Attempt | GatewayError | Promise<Attempt | GatewayError> {
  if (step.route.entry === prepared.entry && step.deployment.codec === prepared.target) {
    // The common case: the prepared request as is, with no promise. A refusal by the codec (thrown)
    // is the client's error.
    return encoded(call, step, prepared.request, prepared.passThrough, prepared.notes);
  }
  return translatedAttempt(call, prepared, step, strict);
}

/** Another model (a fallback) or another family: re-decoded strictly when needed, and checked. */
async function translatedAttempt(
  call: ChatCall,
  prepared: PreparedRequest,
  step: Step,
  strict: StrictDecode,
): Promise<Attempt | GatewayError> {
  const entry = step.route.entry;
  const codec = step.deployment.codec;
  const primary = entry === prepared.entry;
  try {
    let base = prepared.request;
    if (prepared.passThrough) {
      // Decoded leniently for pass-through (content the IR cannot carry skipped): translation needs it all.
      strict.strictRequest ??= decodeStrictly(call);
      if (strict.strictRequest instanceof GatewayError) throw strict.strictRequest;
      base = strict.strictRequest;
    }
    const request: ChatRequest = { ...base, sampling: { ...base.sampling } };
    let notes = prepared.notes;
    const asked = request.sampling.maxOutputTokens;
    // The model's own cap was fitted when prepared (the note is there); a strict re-decode needs it again.
    if (asked !== undefined && asked > entry.maxOutputTokens) {
      request.sampling.maxOutputTokens = entry.maxOutputTokens;
      if (!primary)
        notes = [
          ...(notes ?? []),
          `max output lowered from ${asked} to ${entry.maxOutputTokens} for the fallback ${entry.name}`,
        ];
    }
    if (!primary) {
      validateAgainstCatalog(request, entry);
      await checkContextWindow(request, entry, promptTokensOf(base));
    }
    if (codec.capabilities.requiresMaxOutputTokens && request.sampling.maxOutputTokens === undefined) {
      request.sampling.maxOutputTokens = entry.maxOutputTokens;
    }
    return encoded(call, step, request, false, notes);
  } catch (error) {
    // The model's own deployments take what the client sent, or the client hears why not.
    if (primary || !(error instanceof GatewayError)) throw error;
    return error;
  }
}

function encoded(
  call: ChatCall,
  step: Step,
  request: ChatRequest,
  passThrough: boolean,
  notes: string[] | undefined,
): Attempt {
  const codec = step.deployment.codec;
  const target = step.deployment.target;
  const candidates = request.sampling.candidateCount ?? 1;
  const calls = candidates > 1 && !codec.capabilities.multipleCandidates ? candidates : 1;
  let upstreamRequest: UpstreamRequest;
  if (calls > 1) {
    const single: ChatRequest = { ...request, sampling: { ...request.sampling } };
    delete single.sampling.candidateCount;
    upstreamRequest = codec.encodeRequest(single, target);
  } else {
    upstreamRequest = passThrough
      ? codec.passThrough.encodeRequest(call.body as JsonObject, request, target, call.headers)
      : codec.encodeRequest(request, target);
  }
  const entry = step.route.entry;
  const forwarded = passThrough && calls === 1;
  return {
    step,
    entry,
    codec,
    request,
    passThrough: forwarded,
    notes: forwarded ? notes : withHeaderNotes(call, codec, entry.name, notes),
    calls,
    upstreamRequest,
  };
}

/**
 * A surface's own protocol headers (B's feature flags) travel only with the pass-through: a
 * translated request (another family, or a fallback) goes without them, and the client is told.
 */
function withHeaderNotes(
  call: ChatCall,
  codec: WireCodec,
  model: string,
  notes: string[] | undefined,
): string[] | undefined {
  let all = notes;
  for (const name of call.surface.familyHeaders) {
    if (call.headers[name] === undefined) continue;
    all = [
      ...(all ?? []),
      `the ${name} header was not forwarded to ${model} (${codec.id} family, translated)`,
    ];
  }
  return all;
}

function decodeStrictly(call: ChatCall): ChatRequest | GatewayError {
  try {
    return call.surface.decodeRequest({ body: call.body, route: call.route });
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
