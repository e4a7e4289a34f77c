/**
 * Bedrock's error statuses made to mean what the shared rules (`codecs/shared/upstream-errors.ts`)
 * read from a status: the exception's name (`x-amzn-errortype`, `Name:http://internal…` trimmed)
 * decides, because Bedrock answers some with a status that says otherwise (a model not ready yet
 * is a 429 on the wire, yet a wait for capacity, not the caller's rate).
 */
const statusByException: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ValidationException: 400,
  ModelNotReadyException: 503,
  ServiceUnavailableException: 503,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  ExpiredTokenException: 403,
  ResourceNotFoundException: 404,
  ModelTimeoutException: 408,
  ServiceQuotaExceededException: 429,
  InternalServerException: 500,
  ModelErrorException: 502,
};

/** The exception's name from an `x-amzn-errortype` value (`ThrottlingException:http://…`). */
export function exceptionName(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return undefined;
  return value.split(':')[0];
}

/** The status the exception stands for; the wire's status when it names none the table knows. */
export function statusForException(name: string | undefined, wireStatus: number): number {
  return name === undefined ? wireStatus : (statusByException[name] ?? wireStatus);
}

/** B's error type for a status, so the B codec reads a Bedrock error body as its own. */
const betaErrorTypeByStatus: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  429: 'rate_limit_error',
  503: 'overloaded_error',
};

/** Bedrock's `{"message": …}` in B's error shape (InvokeModel answers errors in Bedrock's shape, not Anthropic's). */
export function betaErrorBody(bodyText: string, status: number): string {
  let message: unknown;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) message = parsed.message;
  } catch {
    // Not JSON (a proxy's page): no message to carry.
  }
  const error: Record<string, string> = { type: betaErrorTypeByStatus[status] ?? 'api_error' };
  if (typeof message === 'string') error.message = message;
  return JSON.stringify({ type: 'error', error });
}
