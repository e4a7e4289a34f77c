/** The one error vocabulary. Each family maps kinds to its own codes, statuses and body shape. */
export type GatewayErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  /** No route at this path (a model that does not exist is `not_found`). */
  | 'unknown_route'
  /** A known path called with a method it does not serve (the answer carries `Allow`). */
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'quota'
  | 'overloaded'
  | 'unavailable'
  /** The model is in the catalog but nothing is configured to serve it (waiting will not help). */
  | 'not_configured'
  | 'timeout'
  | 'upstream'
  | 'internal';

/** Default HTTP status per kind; a family encoder may use its own (B overloaded is 529). */
export const defaultStatusByKind = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  unknown_route: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota: 429,
  overloaded: 503,
  unavailable: 503,
  not_configured: 503,
  timeout: 504,
  upstream: 502,
  internal: 500,
} as const satisfies Record<GatewayErrorKind, number>;

export interface GatewayErrorOptions {
  /** Name of the offending request field, when there is one (A `param`). */
  param?: string;
  /** Seconds the client should wait before retrying. */
  retryAfterSeconds?: number;
  /** For logs only: never sent to a client. */
  cause?: unknown;
  /**
   * The error code to show where the kind's default code would mislead (A `code`: a missing stored
   * response is not `model_not_found`). Families whose errors have no such code ignore it.
   */
  code?: string | null;
}

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly code: string | null | undefined;

  /** `message` must be safe to show a client: no keys, no upstream URLs. */
  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.code = options.code;
  }

  get status(): number {
    return defaultStatusByKind[this.kind];
  }
}

export function invalidRequest(message: string, param?: string): GatewayError {
  return new GatewayError('invalid_request', message, param === undefined ? {} : { param });
}
