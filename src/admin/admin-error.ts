/** The admin API's errors: a status, a code and a message, answered A-shaped (the API speaks JSON like A). */
import type { JsonObject } from '../ir/index.ts';

export class AdminError extends Error {
  override name = 'AdminError';
  readonly status: number;
  readonly code: string;
  /** Seconds to wait before trying again (a 429), sent as `retry-after`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, message: string, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Too many wrong admin keys from one address: a 429 until its minute is over. */
export function tooManyGuesses(lockedForMs: number): AdminError {
  const seconds = Math.ceil(lockedForMs / 1000);
  return new AdminError(
    429,
    'rate_limited',
    `Too many wrong admin keys from this address: try again in ${seconds} s.`,
    seconds,
  );
}

/** A-shaped error body (the admin API speaks JSON like the A surface). */
export function adminErrorBody(error: AdminError): JsonObject {
  const type =
    error.status === 401
      ? 'authentication_error'
      : error.status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  return { error: { message: error.message, type, param: null, code: error.code } };
}

/** A method and path the admin API does not declare (the path echoed bounded and printable). */
export function noAdminRoute(method: string, pathname: string): AdminError {
  return new AdminError(
    404,
    'not_found',
    `No admin route for ${method} ${pathname.slice(0, 100).replace(/[^\x21-\x7e]/g, '?')}`,
  );
}
