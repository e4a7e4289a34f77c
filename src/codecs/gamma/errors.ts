/**
 * Family C errors: `{"error":{"code","message","status"}}` (google.rpc.Status as JSON) both ways,
 * for HTTP answers and for in-stream `data:` error chunks.
 */
import { isJsonObject, type GatewayError, type GatewayErrorKind, type JsonObject } from '../../ir/index.ts';
import type { UpstreamErrorDetail, WireError } from '../codec.ts';
import { parseErrorJson, upstreamError } from '../shared/upstream-errors.ts';
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
  not_configured: { status: 503, rpc: 'UNAVAILABLE' },
  timeout: { status: 504, rpc: 'DEADLINE_EXCEEDED' },
  upstream: { status: 502, rpc: 'UNAVAILABLE' },
  internal: { status: 500, rpc: 'INTERNAL' },
} as const satisfies Record<GatewayErrorKind, { status: number; rpc: string }>;

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

/** `RetryInfo.retryDelay` is a proto duration string such as "22s" or "1.5s"; in ms. */
function retryInfoMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isJsonObject(detail) || typeof detail.retryDelay !== 'string') continue;
    const seconds = Number.parseFloat(detail.retryDelay);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
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

/** What the body's `error` object (google.rpc.Status) says; shared by HTTP errors and in-stream chunks. */
export function errorDetail(error: JsonObject): UpstreamErrorDetail {
  return {
    message: typeof error.message === 'string' ? error.message : undefined,
    credentialsRejected: isKeyRejection(error.details),
    retryAfterMs: retryInfoMs(error.details),
  };
}

/** What a C error body says (the shared rules map its status). */
export function decodeErrorBody(bodyText: string): UpstreamErrorDetail {
  const body = parseErrorJson(bodyText);
  return isJsonObject(body) && isJsonObject(body.error) ? errorDetail(body.error) : {};
}

/** An in-stream error chunk's `error` object: its `code` is the HTTP status it stands for. */
export function streamError(error: JsonObject): GatewayError {
  const status = typeof error.code === 'number' ? error.code : 500;
  const detail = errorDetail(error);
  return upstreamError(status, detail, detail.retryAfterMs);
}
