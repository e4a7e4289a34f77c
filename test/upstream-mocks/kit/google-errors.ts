/**
 * Google API errors (google.rpc.Status over JSON, as generativelanguage.googleapis.com and
 * aiplatform.googleapis.com answer them): `{"error":{"code","message","status","details"?}}`.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './server.ts';

export type GoogleStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'FAILED_PRECONDITION';

const statusByCode: Record<number, GoogleStatus> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function sendGoogleError(
  response: ServerResponse,
  code: number,
  message: string,
  details?: unknown[],
): void {
  const error = { code, message, status: statusByCode[code] ?? 'INTERNAL', ...(details ? { details } : {}) };
  sendJson(response, code, { error }, code === 429 ? { 'retry-after': '1' } : {});
}

/** Texts the Google front end answers an injected failure status with. */
export function googleFailureMessage(code: number): string {
  if (code === 429) return 'Resource has been exhausted (e.g. check quota).';
  if (code === 503) return 'The model is overloaded. Please try again later.';
  if (code === 401) return 'Request had invalid authentication credentials.';
  return 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting';
}

export function fieldViolation(description: string, field?: string): unknown {
  return {
    '@type': 'type.googleapis.com/google.rpc.BadRequest',
    fieldViolations: [{ ...(field ? { field } : {}), description }],
  };
}
