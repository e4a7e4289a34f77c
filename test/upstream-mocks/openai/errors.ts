/**
 * OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`, with the texts the real API
 * sends (recorded in public bug reports; see /work/shared/reference/vendor-upstreams.md).
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from '../kit/server.ts';

export interface OpenAIErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** A refusal decided by validation: its status and body, sent by the caller in its vendor's framing. */
export interface Refusal {
  status: number;
  error: OpenAIErrorBody;
}

export function invalidRequest(
  status: number,
  message: string,
  param: string | null = null,
  code: string | null = null,
): Refusal {
  return { status, error: { message, type: 'invalid_request_error', param, code } };
}

export function sendOpenAIError(
  response: ServerResponse,
  refusal: Refusal,
  headers: Record<string, string> = {},
): void {
  sendJson(response, refusal.status, { error: refusal.error }, headers);
}

export const missingKeyMessage =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth " +
  "(i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the " +
  'API from your browser and are prompted for a username and password. You can obtain an API key from ' +
  'https://platform.openai.com/account/api-keys.';

/** The real API echoes a masked key; never the whole secret. */
export function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 24))}${key.slice(-4)}`;
}

export function incorrectKey(key: string): Refusal {
  return invalidRequest(
    401,
    `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    null,
    'invalid_api_key',
  );
}

/** The answer to `x-mock-fail: <status>`, as OpenAI sends each of these statuses. */
export function injectedFailure(status: number): { refusal: Refusal; headers: Record<string, string> } {
  if (status === 429) {
    return {
      refusal: {
        status,
        error: {
          message: 'Rate limit reached for requests. Please try again in 1s.',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      headers: { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' },
    };
  }
  if (status === 401) return { refusal: incorrectKey('sk-injected-failure'), headers: {} };
  if (status >= 500) {
    const message =
      status === 503
        ? 'The engine is currently overloaded, please try again later.'
        : 'The server had an error while processing your request. Sorry about that!';
    return {
      refusal: { status, error: { message, type: 'server_error', param: null, code: null } },
      headers: {},
    };
  }
  return { refusal: invalidRequest(status, `Injected failure ${status}.`), headers: {} };
}
