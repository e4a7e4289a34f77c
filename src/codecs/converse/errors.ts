/**
 * Converse errors: a non-2xx body `{"message": "…"}` with the exception's name in the
 * `x-amzn-errortype` header (the status is the shared rules' business), the same shape written for
 * a client, and the in-stream exceptions of ConverseStream (`throttlingException`, …) read as the
 * status each stands for.
 */
import type { UpstreamErrorDetail, WireError } from '../codec.ts';
import { isJsonObject, type GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { parseErrorJson, upstreamError } from '../shared/upstream-errors.ts';
import { streamExceptions } from './wire.ts';

const wireByKind = {
  invalid_request: { status: 400, type: 'ValidationException' },
  authentication: { status: 403, type: 'UnrecognizedClientException' },
  permission: { status: 403, type: 'AccessDeniedException' },
  not_found: { status: 404, type: 'ResourceNotFoundException' },
  unknown_route: { status: 404, type: 'UnknownOperationException' },
  method_not_allowed: { status: 405, type: 'ValidationException' },
  request_timeout: { status: 408, type: 'ModelTimeoutException' },
  payload_too_large: { status: 413, type: 'ValidationException' },
  unsupported_media_type: { status: 415, type: 'ValidationException' },
  rate_limited: { status: 429, type: 'ThrottlingException' },
  quota: { status: 429, type: 'ServiceQuotaExceededException' },
  overloaded: { status: 503, type: 'ServiceUnavailableException' },
  unavailable: { status: 503, type: 'ServiceUnavailableException' },
  not_configured: { status: 503, type: 'ServiceUnavailableException' },
  timeout: { status: 504, type: 'ModelTimeoutException' },
  upstream: { status: 502, type: 'InternalServerException' },
  internal: { status: 500, type: 'InternalServerException' },
} as const satisfies Record<GatewayErrorKind, { status: number; type: string }>;

export function encodeError(error: GatewayError): WireError {
  const { status, type } = wireByKind[error.kind];
  const headers: Record<string, string> = { 'x-amzn-errortype': type };
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return { status, body: { message: error.message }, headers };
}

function messageOf(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  // The services spell it `message`; some older ones `Message`.
  const message = body.message ?? body.Message;
  return typeof message === 'string' ? message : undefined;
}

/** What a Converse error body says (never throws). */
export function decodeErrorBody(bodyText: string): UpstreamErrorDetail {
  const body = parseErrorJson(bodyText);
  const message = messageOf(body);
  return {
    message,
    // A spent quota, not a rate: Bedrock says so in the message of a ServiceQuotaExceededException.
    quota: message !== undefined && /service quota/i.test(message),
  };
}

/** The exception events ConverseStream may end with. */
export type StreamExceptionName = keyof typeof streamExceptions;

export function isStreamException(name: string | undefined): name is StreamExceptionName {
  return name !== undefined && Object.hasOwn(streamExceptions, name);
}

/** An in-stream exception, as the error its status stands for. */
export function decodeStreamException(name: StreamExceptionName, payload: unknown): GatewayError {
  return upstreamError(streamExceptions[name], { message: messageOf(payload) });
}
