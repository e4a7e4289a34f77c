/**
 * A cloud credential the identity service refused (a token grant answered 4xx) is the same fault
 * as an upstream 401: the gateway's own credentials are wrong. It is answered as one — a 401 the
 * delivery path already treats as final (no retry, no second token request), marks the deployment
 * misconfigured, and never shows the identity service's words to a client. An identity service
 * that could not be reached stays a transport failure (retried like a connection error).
 */
import { Readable } from 'node:stream';
import type { UpstreamResponse } from '../upstream/transport.ts';

/** The 4xx status an identity library's error carries (gaxios, MSAL/axios shapes), else undefined. */
export function refusedStatus(error: unknown): number | undefined {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    if (typeof cause !== 'object') return undefined;
    const record = cause as {
      status?: unknown;
      statusCode?: unknown;
      response?: { status?: unknown };
      cause?: unknown;
    };
    for (const status of [record.response?.status, record.status, record.statusCode])
      if (typeof status === 'number' && status >= 400 && status < 500) return status;
    cause = record.cause;
  }
  return undefined;
}

/** The answer for refused credentials: a 401 whose body says only that (no library text). */
export function refusedCredentialsAnswer(who: string): UpstreamResponse {
  const text = JSON.stringify({
    error: {
      code: 401,
      message: `${who}: the identity service refused the gateway's credentials`,
      status: 'UNAUTHENTICATED',
    },
  });
  return {
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: Readable.from([text]),
    text: () => Promise.resolve(text),
    cancel: () => undefined,
  };
}
