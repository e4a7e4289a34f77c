/** GatewayError → the beta error body `{"type":"error","error":{type,message},"request_id"}`; its bodies read back. */
import type { UpstreamErrorDetail, WireError } from '../codec.ts';
import { isJsonObject, type GatewayError, type GatewayErrorKind, type JsonObject } from '../../ir/index.ts';
import { parseErrorJson, upstreamError } from '../shared/upstream-errors.ts';
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
  // Not overloaded: a setting is missing, so a plain 503 (the answer says not to retry).
  not_configured: { status: 503, type: 'api_error' },
  timeout: { status: 504, type: 'timeout_error' },
  upstream: { status: 502, type: 'api_error' },
  internal: { status: 500, type: 'api_error' },
} as const satisfies Record<GatewayErrorKind, { status: number; type: BetaErrorType }>;

/** The `error` object shared by the HTTP body and the in-stream `event: error`. */
export function errorObject(error: GatewayError): { type: BetaErrorType; message: string } {
  return { type: wireByKind[error.kind].type, message: error.message };
}

/** `requestId`: the answer's id, in the body as the family's API gives it (null when unknown). */
export function encodeError(error: GatewayError, requestId?: string): WireError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return {
    status: wireByKind[error.kind].status,
    body: { type: 'error', error: errorObject(error), request_id: requestId ?? null },
    headers,
  };
}

/** The HTTP status each error type stands for (the family's documented pairs): in-stream errors carry none. */
const statusByType = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} as const satisfies Record<BetaErrorType, number>;

function isBetaErrorType(value: string): value is BetaErrorType {
  return Object.hasOwn(statusByType, value);
}

function detailOf(error: JsonObject): UpstreamErrorDetail {
  const details = isJsonObject(error.details) ? error.details : {};
  return {
    message: typeof error.message === 'string' ? error.message : undefined,
    quota: details.error_code === 'enforced_spend_limit_reached',
  };
}

/** What a B error body `{"type":"error","error":{type,message}}` says (the shared rules map its status). */
export function decodeErrorBody(bodyText: string): UpstreamErrorDetail {
  const body = parseErrorJson(bodyText);
  return isJsonObject(body) && isJsonObject(body.error) ? detailOf(body.error) : {};
}

/** The `error` object of an in-stream `event: error`, as the status its type stands for. */
export function decodeStreamError(error: unknown): GatewayError {
  const object = isJsonObject(error) ? error : {};
  const type = typeof object.type === 'string' ? object.type : '';
  return upstreamError(isBetaErrorType(type) ? statusByType[type] : 502, detailOf(object));
}
