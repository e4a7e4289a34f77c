/**
 * A strict Anthropic API on loopback: auth (x-api-key or bearer), anthropic-version, the Messages,
 * count_tokens and models routes, and the real error shapes and headers
 * (docs.anthropic.com/en/api/errors, /en/api/versioning, /en/api/rate-limits).
 */
import type { ServerResponse } from 'node:http';
import {
  requestedFailure,
  sendJson,
  startMockServer,
  type MockRequest,
  type MockUpstream,
} from '../kit/server.ts';
import { startSse, writeNamedEvent } from '../kit/sse.ts';
import { PrefixCache, randomId } from '../kit/text.ts';
import {
  anthropicErrorBody,
  anthropicStreamEvents,
  buildAnthropicMessage,
  countInputTokens,
} from './answers.ts';
import {
  countTokensFields,
  isClaudeModel,
  messagesFields,
  messagesRequestProblem,
  type MessagesRequest,
} from './validate.ts';

export interface AnthropicMockOptions {
  apiKey?: string;
  /** A fixed port (a mock run by hand); a free one when absent. */
  port?: number | undefined;
}

/**
 * The versions the API has published; `anthropic-beta` is a separate header and does not count.
 * 2026-10-21 is the one @anthropic-ai/sdk 1.x sends (its client.js default headers); 0.x sends 2023-06-01.
 */
export const publishedVersions = new Set(['2023-06-01', '2023-01-01', '2026-10-21']);

export const anthropicModels = [
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
];

/** Error type per status, as the API names them. */
export const anthropicErrorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function rateLimitHeaders(): Record<string, string> {
  const reset = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const headers: Record<string, string> = {};
  for (const [kind, limit] of [
    ['requests', '4000'],
    ['input-tokens', '2000000'],
    ['output-tokens', '400000'],
    ['tokens', '2400000'],
  ] as const) {
    headers[`anthropic-ratelimit-${kind}-limit`] = limit;
    headers[`anthropic-ratelimit-${kind}-remaining`] = String(Number(limit) - 1);
    headers[`anthropic-ratelimit-${kind}-reset`] = reset;
  }
  return headers;
}

export function sendAnthropicError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const requestId = randomId('req_011C');
  const type = anthropicErrorTypes[status] ?? 'api_error';
  const extra = status === 429 ? { 'retry-after': '1' } : {};
  sendJson(response, status, anthropicErrorBody(type, message, requestId), {
    'request-id': requestId,
    ...extra,
    ...headers,
  });
}

/** The message text the real API answers an injected failure status with. */
export function injectedFailureMessage(status: number): string {
  if (status === 429) return 'Number of request tokens has exceeded your per-minute rate limit';
  if (status === 529) return 'Overloaded';
  if (status === 401) return 'invalid x-api-key';
  return status >= 500 ? 'Internal server error' : 'mock failure';
}

function presentedKey(headers: Record<string, string>): string | undefined {
  if (headers['x-api-key'] !== undefined) return headers['x-api-key'];
  const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}

/** Writes a Message as JSON or, when asked, as the SSE event sequence. */
export function answerMessages(
  response: ServerResponse,
  request: MessagesRequest,
  model: string,
  cache: PrefixCache,
  headers: Record<string, string>,
): void {
  const message = buildAnthropicMessage(request, model, cache);
  if (request.stream !== true) {
    sendJson(response, 200, message, headers);
    return;
  }
  startSse(response, headers);
  for (const { event, data } of anthropicStreamEvents(message)) writeNamedEvent(response, event, data);
  response.end();
}

export async function startAnthropicMock(options: AnthropicMockOptions = {}): Promise<MockUpstream> {
  const apiKey = options.apiKey ?? 'sk-ant-mock-key';
  const cache = new PrefixCache();
  return startMockServer(
    (request: MockRequest, response) => {
      const key = presentedKey(request.headers);
      if (key === undefined) {
        sendAnthropicError(response, 401, 'x-api-key header is required');
        return;
      }
      if (key !== apiKey) {
        sendAnthropicError(response, 401, 'invalid x-api-key');
        return;
      }
      const version = request.headers['anthropic-version'];
      if (version === undefined) {
        sendAnthropicError(response, 400, 'anthropic-version: header is required');
        return;
      }
      if (!publishedVersions.has(version)) {
        sendAnthropicError(response, 400, `anthropic-version: invalid version "${version}"`);
        return;
      }
      const failure = requestedFailure(request.headers);
      if (failure !== undefined) {
        sendAnthropicError(response, failure, injectedFailureMessage(failure));
        return;
      }
      const route = `${request.method} ${request.url.pathname}`;
      const headers = {
        'request-id': randomId('req_011C'),
        'anthropic-organization-id': '00000000-0000-4000-8000-000000000000',
        ...rateLimitHeaders(),
      };
      if (route === 'GET /v1/models') {
        const data = anthropicModels.map((model) => ({ type: 'model', ...model }));
        sendJson(
          response,
          200,
          { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
          headers,
        );
        return;
      }
      const counting = route === 'POST /v1/messages/count_tokens';
      if (route !== 'POST /v1/messages' && !counting) {
        sendAnthropicError(response, 404, 'Not Found');
        return;
      }
      if (request.jsonError !== undefined) {
        sendAnthropicError(
          response,
          400,
          `There was an error parsing the body of your request: ${request.jsonError}`,
        );
        return;
      }
      const problem = messagesRequestProblem(request.body, {
        fields: counting ? countTokensFields : messagesFields,
        vertex: false,
        needsMaxTokens: !counting,
      });
      if (problem) {
        sendAnthropicError(response, 400, problem);
        return;
      }
      const body = request.body as MessagesRequest & { model: string };
      if (!isClaudeModel(body.model)) {
        sendAnthropicError(response, 404, `model: ${body.model}`);
        return;
      }
      if (counting) {
        sendJson(response, 200, { input_tokens: countInputTokens(body) }, headers);
        return;
      }
      answerMessages(response, body, body.model, cache, headers);
    },
    { port: options.port },
  );
}
