/** GatewayError ↔ A error bodies `{"error":{"message","type","param","code"}}` (brief "Errors"). */
import {
  GatewayError,
  isJsonObject,
  type GatewayErrorKind,
  type GatewayErrorOptions,
  type JsonObject,
} from '../../ir/index.ts';
import type { HeaderMap, WireError } from '../codec.ts';
import type { AlphaErrorBody } from './wire.ts';

const wireByKind = {
  invalid_request: { status: 400, type: 'invalid_request_error', code: null },
  authentication: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { status: 403, type: 'invalid_request_error', code: 'permission_denied' },
  not_found: { status: 404, type: 'invalid_request_error', code: 'model_not_found' },
  // What the family's own API answers for a path it does not serve.
  unknown_route: { status: 404, type: 'invalid_request_error', code: 'unknown_url' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', code: 'method_not_allowed' },
  request_timeout: { status: 408, type: 'invalid_request_error', code: 'request_timeout' },
  payload_too_large: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', code: null },
  rate_limited: { status: 429, type: 'requests', code: 'rate_limit_exceeded' },
  quota: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' },
  overloaded: { status: 503, type: 'server_error', code: 'overloaded' },
  unavailable: { status: 503, type: 'server_error', code: 'overloaded' },
  timeout: { status: 504, type: 'server_error', code: 'timeout' },
  upstream: { status: 502, type: 'server_error', code: 'upstream_error' },
  internal: { status: 500, type: 'server_error', code: 'server_error' },
} as const satisfies Record<GatewayErrorKind, { status: number; type: string; code: string | null }>;

export function errorBody(error: GatewayError): AlphaErrorBody {
  const wire = wireByKind[error.kind];
  const code = error.code === undefined ? wire.code : error.code;
  return { error: { message: error.message, type: wire.type, param: error.param ?? null, code } };
}

export function encodeError(error: GatewayError): WireError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return { status: wireByKind[error.kind].status, body: errorBody(error), headers };
}

/**
 * Messages used when the upstream text must not (credentials, org ids in rate-limit texts) or
 * cannot (not A-shaped) be shown to the client.
 */
const genericMessageByKind = {
  invalid_request: 'upstream: the request was rejected',
  authentication: "the upstream rejected the gateway's credentials",
  permission: "the upstream rejected the gateway's credentials",
  not_found: 'upstream: the model was not found',
  unknown_route: 'upstream: the path was not found',
  method_not_allowed: 'upstream: method not allowed',
  request_timeout: 'upstream: the request timed out',
  payload_too_large: 'upstream: the request is too large',
  unsupported_media_type: 'upstream: unsupported media type',
  rate_limited: 'upstream: rate limit reached, retry later',
  quota: 'upstream: quota exhausted',
  overloaded: 'upstream: overloaded, retry later',
  unavailable: 'upstream: unavailable, retry later',
  timeout: 'upstream: timed out',
  upstream: 'upstream: the upstream failed',
  internal: 'upstream: internal error',
} as const satisfies Record<GatewayErrorKind, string>;

/** Kinds whose upstream text is safe and useful to pass on (it explains the client's mistake). */
const showsUpstreamText: ReadonlySet<GatewayErrorKind> = new Set(['invalid_request', 'not_found']);

interface ErrorDetail {
  message: string | undefined;
  type: string | undefined;
  code: string | undefined;
  param: string | undefined;
  /** vLLM and llama.cpp put the HTTP status in a numeric `code`. */
  numericCode: number | undefined;
}

function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The error object of an A body. Tolerates the OpenAI-compatible variants: `{"error":{…}}`
 * (OpenAI, llama.cpp, newer vLLM), a bare `{"message","type","code"}` (older vLLM) and
 * `{"error":"text"}` (Ollama). Anything else gives all-undefined.
 */
export function readErrorDetail(body: unknown): ErrorDetail {
  const root = isJsonObject(body) ? body : {};
  const error = isJsonObject(root.error) ? root.error : root;
  const code = error.code;
  return {
    message: typeof root.error === 'string' ? root.error : stringField(error, 'message'),
    type: stringField(error, 'type'),
    code: typeof code === 'string' ? code : undefined,
    param: stringField(error, 'param'),
    numericCode: typeof code === 'number' ? code : undefined,
  };
}

function kindForStatus(status: number, detail: ErrorDetail): GatewayErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401 || status === 403) return 'authentication';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 429) {
    return detail.code === 'insufficient_quota' || detail.type === 'insufficient_quota'
      ? 'quota'
      : 'rate_limited';
  }
  if (status === 500) return 'internal';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 504) return 'timeout';
  return 'upstream';
}

/** Builds the client-safe GatewayError for an upstream failure with this status and body detail. */
export function errorFromDetail(
  status: number,
  detail: ErrorDetail,
  retryAfterSeconds?: number,
): GatewayError {
  const kind = kindForStatus(status, detail);
  const options: GatewayErrorOptions = {};
  if (retryAfterSeconds !== undefined) options.retryAfterSeconds = retryAfterSeconds;
  // 401/403 from the upstream is the gateway's problem, not the client's: never echo its text.
  if (kind === 'authentication')
    return new GatewayError('upstream', genericMessageByKind.authentication, options);
  if (kind === 'invalid_request' && detail.param !== undefined) options.param = detail.param;
  let message: string = genericMessageByKind[kind];
  if (showsUpstreamText.has(kind) && detail.message !== undefined) message = `upstream: ${detail.message}`;
  if (kind === 'upstream' && status !== 502) message = `${message} (HTTP ${status})`;
  return new GatewayError(kind, message, options);
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function firstHeader(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms` (A's finer hint) wins over `retry-after` seconds; HTTP dates are not read (no clock here). */
export function readRetryAfter(headers: HeaderMap): number | undefined {
  const milliseconds = Number(firstHeader(headers, 'retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds / 1000);
  const seconds = Number(firstHeader(headers, 'retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

export function decodeError(status: number, bodyText: string, headers: HeaderMap): GatewayError {
  return errorFromDetail(status, readErrorDetail(parseBody(bodyText)), readRetryAfter(headers));
}

/** In-stream errors carry no status: infer the one the body describes. */
const statusByCode: ReadonlyMap<string, number> = new Map([
  ['invalid_api_key', 401],
  ['insufficient_quota', 429],
  ['rate_limit_exceeded', 429],
  ['model_not_found', 404],
  ['context_length_exceeded', 400],
  ['overloaded', 503],
  ['timeout', 504],
  ['server_error', 500],
]);
const statusByType: ReadonlyMap<string, number> = new Map([
  ['invalid_request_error', 400],
  ['insufficient_quota', 429],
  ['requests', 429],
  ['tokens', 429],
  ['server_error', 500],
]);

export function streamError(body: unknown): GatewayError {
  const detail = readErrorDetail(body);
  const numeric = detail.numericCode;
  const status =
    (detail.code === undefined ? undefined : statusByCode.get(detail.code)) ??
    (detail.type === undefined ? undefined : statusByType.get(detail.type)) ??
    (numeric !== undefined && numeric >= 400 && numeric <= 599 ? numeric : 502);
  return errorFromDetail(status, detail);
}
