/**
 * Fault injection by request header, so clients (and the gateway's own tests) can rehearse upstream
 * failures: `x-simulate-error`, `x-simulate-latency-ms`, `x-simulate-stream-error-after`,
 * `x-simulate-stream-cut-after`. Unparseable values are ignored rather than rejected: the headers
 * are test hooks, not API.
 */
import type { HeaderMap } from '../codecs/codec.ts';
import { GatewayError, type GatewayErrorKind } from '../ir/index.ts';

export interface Faults {
  /** Answer with this error instead of a reply. */
  error: GatewayError | undefined;
  /** Wait before the response headers. */
  latencyMs: number;
  /** Stream: after this many tokens, send the family's in-stream error. */
  streamErrorAfter: number | undefined;
  /** Stream: after this many tokens, end the body with no terminal event. */
  streamCutAfter: number | undefined;
}

/** Status → the error kind whose family encoding carries it (B shows 503 as 529, C 401 as 403). */
const kindByStatus: Readonly<Record<number, GatewayErrorKind>> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal',
  502: 'upstream',
  503: 'unavailable',
  504: 'timeout',
  529: 'overloaded',
};

const retryAfterKinds: ReadonlySet<GatewayErrorKind> = new Set(['rate_limited', 'unavailable', 'overloaded']);

export const noFaults: Faults = {
  error: undefined,
  latencyMs: 0,
  streamErrorAfter: undefined,
  streamCutAfter: undefined,
};

export function readFaults(headers: HeaderMap): Faults {
  const error = headers['x-simulate-error'];
  const latency = headers['x-simulate-latency-ms'];
  const streamError = headers['x-simulate-stream-error-after'];
  const streamCut = headers['x-simulate-stream-cut-after'];
  // The common case has none of the headers: skip all parsing.
  if (error === undefined && latency === undefined && streamError === undefined && streamCut === undefined) {
    return noFaults;
  }
  return {
    error: simulatedError(count(error)),
    latencyMs: count(latency) ?? 0,
    streamErrorAfter: count(streamError),
    streamCutAfter: count(streamCut),
  };
}

export function simulatedError(status: number | undefined): GatewayError | undefined {
  if (status === undefined) return undefined;
  const kind = kindByStatus[status];
  if (kind === undefined) return undefined;
  const message = `simulated ${status} error (x-simulate-error)`;
  return new GatewayError(kind, message, retryAfterKinds.has(kind) ? { retryAfterSeconds: 1 } : {});
}

/** A non-negative whole number from a header, or undefined. */
function count(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const number = Number(text.trim());
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}
