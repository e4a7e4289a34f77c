/** GatewayError ↔ the beta error body `{"type":"error","error":{type,message},"request_id"}`. */
import type { HeaderMap, WireError } from '../codec.ts';
import type { GatewayErrorKind } from '../../ir/index.ts';
import { GatewayError, isJsonObject } from '../../ir/index.ts';
import type { BetaErrorType } from './wire.ts';

const wireByKind = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  authentication: { status: 401, type: 'authentication_error' },
  permission: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  unknown_route: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'timeout_error' },
  payload_too_large: { status: 413, type: 'request_too_large' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  quota: { status: 429, type: 'rate_limit_error' },
  overloaded: { status: 529, type: 'overloaded_error' },
  unavailable: { status: 529, type: 'overloaded_error' },
  timeout: { status: 504, type: 'timeout_error' },
  upstream: { status: 502, type: 'api_error' },
  internal: { status: 500, type: 'api_error' },
} as const satisfies Record<GatewayErrorKind, { status: number; type: BetaErrorType }>;

/** The `error` object shared by the HTTP body and the in-stream `event: error`. */
export function errorObject(error: GatewayError): { type: BetaErrorType; message: string } {
  return { type: wireByKind[error.kind].type, message: error.message };
}

export function encodeError(error: GatewayError): WireError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return {
    status: wireByKind[error.kind].status,
    body: { type: 'error', error: errorObject(error), request_id: null },
    headers,
  };
}

/** In-stream `error.type` → kind (the HTTP status is already 200 there). */
const kindByType = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'upstream',
  billing_error: 'quota',
  permission_error: 'upstream',
  not_found_error: 'not_found',
  request_too_large: 'payload_too_large',
  rate_limit_error: 'rate_limited',
  api_error: 'internal',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
} as const satisfies Record<BetaErrorType, GatewayErrorKind>;

function isBetaErrorType(value: string): value is BetaErrorType {
  return Object.hasOwn(kindByType, value);
}

/** Upstream 401/403 text may quote the gateway's own key: never pass it on. */
export const credentialsRejected = "the upstream rejected the gateway's credentials";

function kindOfStatus(status: number): GatewayErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401 || status === 403) return 'upstream';
  if (status === 402) return 'quota';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 413) return 'payload_too_large';
  if (status === 429) return 'rate_limited';
  if (status === 500) return 'internal';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'upstream';
}

interface ParsedBody {
  type: string | undefined;
  message: string | undefined;
  errorCode: string | undefined;
}

function parseBody(bodyText: string): ParsedBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || !isJsonObject(value.error)) return undefined;
  const error = value.error;
  const details = isJsonObject(error.details) ? error.details : {};
  return {
    type: typeof error.type === 'string' ? error.type : undefined,
    message: typeof error.message === 'string' ? error.message : undefined,
    errorCode: typeof details.error_code === 'string' ? details.error_code : undefined,
  };
}

function firstHeader(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms` (the SDK's) wins over `retry-after` (seconds); HTTP dates are ignored. */
export function retryAfterSeconds(headers: HeaderMap): number | undefined {
  const milliseconds = Number(firstHeader(headers, 'retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds / 1000);
  const seconds = Number(firstHeader(headers, 'retry-after') ?? Number.NaN);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  return undefined;
}

export function decodeError(status: number, bodyText: string, headers: HeaderMap): GatewayError {
  try {
    const parsed = parseBody(bodyText);
    let kind = kindOfStatus(status);
    if (kind === 'rate_limited' && parsed?.errorCode === 'enforced_spend_limit_reached') kind = 'quota';
    const message =
      status === 401 || status === 403
        ? credentialsRejected
        : `upstream: ${parsed?.message ?? `the beta upstream answered HTTP ${status}`}`;
    const retryAfter = retryAfterSeconds(headers);
    return new GatewayError(kind, message, retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter });
  } catch (cause) {
    return new GatewayError('upstream', `the beta upstream answered HTTP ${status}`, { cause });
  }
}

/** The `error` object of an in-stream `event: error`. */
export function decodeStreamError(error: unknown): GatewayError {
  const object = isJsonObject(error) ? error : {};
  const type = typeof object.type === 'string' ? object.type : '';
  const kind: GatewayErrorKind = isBetaErrorType(type) ? kindByType[type] : 'upstream';
  if (type === 'authentication_error' || type === 'permission_error')
    return new GatewayError(kind, credentialsRejected);
  const text = typeof object.message === 'string' ? object.message : 'the beta upstream reported an error';
  return new GatewayError(kind, `upstream: ${text}`);
}
