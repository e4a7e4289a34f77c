/**
 * Family C errors: `{"error":{"code","message","status"}}` (google.rpc.Status as JSON) both ways,
 * for HTTP answers and for in-stream `data:` error chunks.
 */
import { GatewayError, isJsonObject, type GatewayErrorKind, type JsonObject } from '../../ir/index.ts';
import type { HeaderMap, WireError } from '../codec.ts';
import type { GammaErrorBody } from './wire.ts';

/** C has no 401 for API keys: both credential kinds answer 403 PERMISSION_DENIED, as the real family does. */
const encodeTable = {
  invalid_request: { status: 400, rpc: 'INVALID_ARGUMENT' },
  authentication: { status: 403, rpc: 'PERMISSION_DENIED' },
  permission: { status: 403, rpc: 'PERMISSION_DENIED' },
  not_found: { status: 404, rpc: 'NOT_FOUND' },
  unknown_route: { status: 404, rpc: 'NOT_FOUND' },
  // google.rpc has no code for a wrong HTTP method; UNIMPLEMENTED is what the family's gRPC gateway says.
  method_not_allowed: { status: 405, rpc: 'UNIMPLEMENTED' },
  request_timeout: { status: 408, rpc: 'DEADLINE_EXCEEDED' },
  payload_too_large: { status: 413, rpc: 'INVALID_ARGUMENT' },
  unsupported_media_type: { status: 415, rpc: 'INVALID_ARGUMENT' },
  rate_limited: { status: 429, rpc: 'RESOURCE_EXHAUSTED' },
  quota: { status: 429, rpc: 'RESOURCE_EXHAUSTED' },
  overloaded: { status: 503, rpc: 'UNAVAILABLE' },
  unavailable: { status: 503, rpc: 'UNAVAILABLE' },
  timeout: { status: 504, rpc: 'DEADLINE_EXCEEDED' },
  upstream: { status: 502, rpc: 'UNAVAILABLE' },
  internal: { status: 500, rpc: 'INTERNAL' },
} as const satisfies Record<GatewayErrorKind, { status: number; rpc: string }>;

/** Upstream HTTP status → kind; statuses not listed fall back in `kindForStatus`. */
const decodeTable = {
  400: 'invalid_request',
  401: 'upstream',
  402: 'quota',
  403: 'upstream',
  404: 'not_found',
  408: 'timeout',
  413: 'payload_too_large',
  422: 'invalid_request',
  429: 'rate_limited',
  500: 'internal',
  502: 'upstream',
  503: 'overloaded',
  504: 'timeout',
  529: 'overloaded',
} as const satisfies Record<number, GatewayErrorKind>;

/** Never the upstream text: a credential complaint may quote our key. */
const credentialsMessage = "the upstream rejected the gateway's credentials";

export function encodeErrorBody(error: GatewayError): GammaErrorBody {
  const row = encodeTable[error.kind];
  const body: GammaErrorBody = { error: { code: row.status, message: error.message, status: row.rpc } };
  if (row.status === 429 && error.retryAfterSeconds !== undefined) {
    body.error.details = [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfterSeconds}s` },
    ];
  }
  return body;
}

export function encodeError(error: GatewayError): WireError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return { status: encodeTable[error.kind].status, body: encodeErrorBody(error), headers };
}

function kindForStatus(status: number): GatewayErrorKind {
  if (Object.hasOwn(decodeTable, status)) return decodeTable[status as keyof typeof decodeTable];
  return status >= 500 ? 'upstream' : 'invalid_request';
}

function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Seconds to wait: `retry-after-ms`, then `retry-after` (seconds or HTTP date), then RetryInfo. */
function retryAfterSeconds(headers: HeaderMap, details: unknown): number | undefined {
  const milliseconds = Number(headerValue(headers, 'retry-after-ms'));
  if (headerValue(headers, 'retry-after-ms') !== undefined && Number.isFinite(milliseconds)) {
    return Math.max(0, Math.ceil(milliseconds / 1000));
  }
  const retryAfter = headerValue(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (retryAfter.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  return retryInfoSeconds(details);
}

/** `RetryInfo.retryDelay` is a proto duration string such as "22s" or "1.5s". */
function retryInfoSeconds(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isJsonObject(detail) || typeof detail.retryDelay !== 'string') continue;
    const seconds = Number.parseFloat(detail.retryDelay);
    if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  }
  return undefined;
}

/** C reports a bad API key as 400 INVALID_ARGUMENT with `ErrorInfo.reason: API_KEY_INVALID`. */
function isKeyRejection(details: unknown): boolean {
  return (
    Array.isArray(details) &&
    details.some((detail) => isJsonObject(detail) && detail.reason === 'API_KEY_INVALID')
  );
}

function messageFor(kind: GatewayErrorKind, status: number, upstreamText: string | undefined): string {
  if (kind === 'upstream' && (status === 401 || status === 403)) return credentialsMessage;
  const text = upstreamText ?? `the upstream answered HTTP ${status}`;
  return kind === 'invalid_request' ? `upstream: ${text}` : text;
}

/** The mapping shared by HTTP errors and in-stream error chunks. `error` is the body's `error` object. */
export function errorFromStatus(
  status: number,
  error: JsonObject | undefined,
  headers: HeaderMap,
): GatewayError {
  const details = error?.details;
  const keyRejected = kindForStatus(status) === 'invalid_request' && isKeyRejection(details);
  const kind = keyRejected ? 'upstream' : kindForStatus(status);
  const upstreamText = typeof error?.message === 'string' ? error.message : undefined;
  const message = keyRejected ? credentialsMessage : messageFor(kind, status, upstreamText);
  const waits = kind === 'rate_limited' || kind === 'overloaded';
  const retryAfter = waits ? retryAfterSeconds(headers, details) : undefined;
  return new GatewayError(kind, message, retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter });
}

export function decodeError(status: number, bodyText: string, headers: HeaderMap): GatewayError {
  try {
    let error: JsonObject | undefined;
    try {
      const body: unknown = JSON.parse(bodyText);
      if (isJsonObject(body) && isJsonObject(body.error)) error = body.error;
    } catch {
      error = undefined;
    }
    return errorFromStatus(status, error, headers);
  } catch (cause) {
    return new GatewayError('upstream', `the upstream answered HTTP ${status}`, { cause });
  }
}
