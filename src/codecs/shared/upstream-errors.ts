/**
 * The one set of rules that turns an upstream's failure into a client-safe `GatewayError`, the
 * same for every family: the HTTP status decides the kind (a 402 or a 409 means one thing whoever
 * answered it), the wait is read from the headers in one place with the clock passed in, and the
 * message follows one rule. A family's `errors.ts` only reads its own body into an
 * `UpstreamErrorDetail`; in-stream errors, which carry no HTTP status, name the status their body
 * describes and go through the same rules.
 */
import { GatewayError, type GatewayErrorKind, type GatewayErrorOptions } from '../../ir/index.ts';
import type { HeaderMap, UpstreamErrorDetail } from '../codec.ts';

/** An upstream error as the gateway uses it: the client-safe error and the wait for routing. */
export interface UpstreamErrorReading {
  error: GatewayError;
  /** The upstream's wait in ms (headers first, then the body); undefined when it named none. */
  retryAfterMs: number | undefined;
}

/** Statuses with a meaning of their own; other 4xx are `invalid_request`, everything else `upstream`. */
const kindByStatus: ReadonlyMap<number, GatewayErrorKind> = new Map<number, GatewayErrorKind>([
  [400, 'invalid_request'],
  // 401/403: the upstream refused the gateway's credential — the operator's problem, never the client's.
  [401, 'upstream'],
  [402, 'quota'],
  [403, 'upstream'],
  [404, 'not_found'],
  // The upstream gave up waiting for the gateway's request: a timeout, as a 504 is.
  [408, 'timeout'],
  [413, 'payload_too_large'],
  [422, 'invalid_request'],
  [429, 'rate_limited'],
  [500, 'internal'],
  [502, 'upstream'],
  [503, 'overloaded'],
  [504, 'timeout'],
  [529, 'overloaded'],
]);

/** The kind an upstream HTTP status means, whichever family answered. */
export function upstreamErrorKind(status: number): GatewayErrorKind {
  const known = kindByStatus.get(status);
  if (known !== undefined) return known;
  return status >= 400 && status < 500 ? 'invalid_request' : 'upstream';
}

/**
 * Kinds whose upstream text explains the client's own request and is passed on (scrubbed later by
 * the deployment's scrubber). Rate-limit and quota texts describe the operator's upstream account
 * (organisation ids, plans, limits) and server-side texts the upstream's insides: those get a
 * generic message.
 */
const showsUpstreamText: ReadonlySet<GatewayErrorKind> = new Set([
  'invalid_request',
  'not_found',
  'payload_too_large',
]);

const genericMessage: Readonly<Partial<Record<GatewayErrorKind, string>>> = {
  invalid_request: 'upstream: the request was rejected',
  not_found: 'upstream: the model was not found',
  payload_too_large: 'upstream: the request is too large',
  rate_limited: 'upstream: rate limit reached, retry later',
  quota: 'upstream: quota exhausted',
  overloaded: 'upstream: overloaded, retry later',
  timeout: 'upstream: timed out',
  internal: 'upstream: internal error',
};

/** Never the upstream text: a credential complaint may quote the gateway's key. */
export const credentialsRejectedMessage = "the upstream rejected the gateway's credentials";

/**
 * The client-safe error for an upstream failure with this status (an HTTP answer's, or the one an
 * in-stream error's body describes) and what its body said.
 */
export function upstreamError(
  status: number,
  detail: UpstreamErrorDetail,
  retryAfterMs?: number,
): GatewayError {
  const options: GatewayErrorOptions = {};
  if (retryAfterMs !== undefined) options.retryAfterSeconds = Math.ceil(retryAfterMs / 1000);
  if (status === 401 || status === 403 || detail.credentialsRejected === true)
    return new GatewayError('upstream', credentialsRejectedMessage, options);
  let kind = upstreamErrorKind(status);
  if (kind === 'rate_limited' && detail.quota === true) kind = 'quota';
  if (kind === 'invalid_request' && detail.param !== undefined) options.param = detail.param;
  return new GatewayError(kind, messageFor(kind, status, detail.message), options);
}

function messageFor(kind: GatewayErrorKind, status: number, text: string | undefined): string {
  if (showsUpstreamText.has(kind) && text !== undefined && text.trim() !== '') return `upstream: ${text}`;
  const generic = genericMessage[kind];
  if (generic !== undefined) return generic;
  // A status without a meaning of its own (a 507, a 3xx) is worth naming to whoever reads the log.
  return status === 502 ? 'upstream: the upstream failed' : `upstream: the upstream failed (HTTP ${status})`;
}

/** A non-2xx HTTP answer: its status, its headers' wait (read at `now`, Unix ms) and its body's detail. */
export function readUpstreamError(
  status: number,
  headers: HeaderMap,
  detail: UpstreamErrorDetail,
  now: number,
): UpstreamErrorReading {
  const wait = retryAfterMs(headers, now) ?? detail.retryAfterMs;
  return { error: upstreamError(status, detail, wait), retryAfterMs: wait };
}

function firstHeader(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The upstream's wait in milliseconds: `retry-after-ms` (the A and B SDKs' finer hint), else
 * `retry-after` in seconds or as an HTTP date (read against `now`, Unix ms; a date passed is 0).
 * Undefined when absent, negative or unreadable.
 */
export function retryAfterMs(headers: HeaderMap, now: number): number | undefined {
  const milliseconds = firstHeader(headers, 'retry-after-ms');
  if (milliseconds !== undefined && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const retryAfter = firstHeader(headers, 'retry-after');
  if (retryAfter === undefined || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The JSON of an error body, or undefined when it is not JSON (an HTML page from a proxy, an empty body). */
export function parseErrorJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
