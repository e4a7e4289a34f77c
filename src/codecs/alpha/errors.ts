/** GatewayError → A error bodies `{"error":{"message","type","param","code"}}`; A error bodies read back. */
import { GatewayError, isJsonObject, type GatewayErrorKind, type JsonObject } from '../../ir/index.ts';
import type { UpstreamErrorDetail, WireError } from '../codec.ts';
import { parseErrorJson, upstreamError } from '../shared/upstream-errors.ts';
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
  not_configured: { status: 503, type: 'server_error', code: 'model_not_configured' },
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

interface ErrorFields {
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
function readFields(body: unknown): ErrorFields {
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

function detailOf(fields: ErrorFields): UpstreamErrorDetail {
  return {
    message: fields.message,
    param: fields.param,
    quota: fields.code === 'insufficient_quota' || fields.type === 'insufficient_quota',
  };
}

/** What an A error body says (the shared rules map its status). */
export function decodeErrorBody(bodyText: string): UpstreamErrorDetail {
  return detailOf(readFields(parseErrorJson(bodyText)));
}

/** In-stream errors carry no status: the one the body describes. */
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
  const fields = readFields(body);
  const numeric = fields.numericCode;
  const status =
    (fields.code === undefined ? undefined : statusByCode.get(fields.code)) ??
    (fields.type === undefined ? undefined : statusByType.get(fields.type)) ??
    (numeric !== undefined && numeric >= 400 && numeric <= 599 ? numeric : 502);
  return upstreamError(status, detailOf(fields));
}
