/**
 * A strict loopback stand-in for api.openai.com: bearer auth, the three routes a gateway uses
 * (`POST /v1/chat/completions`, `POST /v1/responses`, `GET /v1/models`), known model ids only, and
 * the real API's refusals with its status and error text. See ../../../README for the conventions.
 */
import type { ServerResponse } from 'node:http';
import {
  headerValue,
  isPlainObject,
  type MockRequest,
  type MockUpstream,
  requestedFailure,
  sendJson,
  startMockServer,
} from '../kit/server.ts';
import { PromptPrefixCache } from '../kit/text.ts';
import { answerChatCompletion } from './chat-route.ts';
import { planAnswer } from './conversation.ts';
import {
  incorrectKey,
  injectedFailure,
  invalidRequest,
  missingKeyMessage,
  sendOpenAIError,
  type Refusal,
} from './errors.ts';
import { defaultOpenAIModels, isReasoningModel, modelListEntry } from './models.ts';
import { sendResponse, streamResponse, validateResponsesRequest } from './responses.ts';
import { unparsableJson } from './validate-chat.ts';

export interface OpenAIMockOptions {
  /** The one key accepted as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** Model ids the mock knows; others are `model_not_found`. */
  models?: readonly string[];
  port?: number | undefined;
}

export const defaultOpenAIMockKey = 'sk-mock-openai-key';

/** Checks `Authorization: Bearer`; undefined when the key is the accepted one. */
export function bearerRefusal(
  authorization: string | undefined,
  acceptedKeys: readonly string[],
): Refusal | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  const key = match?.[1]?.trim();
  if (key === undefined || key.length === 0) return invalidRequest(401, missingKeyMessage);
  return acceptedKeys.includes(key) ? undefined : incorrectKey(key);
}

/** Answers `x-mock-fail: <status>` when present; true when it did. */
export function answerInjectedFailure(request: MockRequest, response: ServerResponse): boolean {
  const status = requestedFailure(request.headers);
  if (status === undefined) return false;
  const { refusal, headers } = injectedFailure(status);
  sendOpenAIError(response, refusal, headers);
  return true;
}

/** The parsed JSON object body, or the refusal the real API sends for an unparsable one. */
export function objectBody(request: MockRequest): { body: Record<string, unknown> } | { refusal: Refusal } {
  if (request.jsonError !== undefined || !isPlainObject(request.body)) return { refusal: unparsableJson };
  return { body: request.body };
}

export function modelRefusal(body: Record<string, unknown>, models: readonly string[]): Refusal | undefined {
  const model = body['model'];
  if (model === undefined) return invalidRequest(400, 'you must provide a model parameter');
  if (typeof model === 'string' && models.includes(model)) return undefined;
  return invalidRequest(
    404,
    `The model \`${typeof model === 'string' ? model : JSON.stringify(model)}\` does not exist or you do not have access to it.`,
    null,
    'model_not_found',
  );
}

export function startOpenAIMock(options: OpenAIMockOptions = {}): Promise<MockUpstream> {
  const apiKey = options.apiKey ?? defaultOpenAIMockKey;
  const models = options.models ?? defaultOpenAIModels;
  const cache = new PromptPrefixCache();
  return startMockServer(
    async (request, response) => {
      const route = `${request.method} ${request.url.pathname}`;
      const known = ['POST /v1/chat/completions', 'POST /v1/responses', 'GET /v1/models'];
      // The real API resolves the route before it looks at the key.
      if (!known.includes(route)) {
        sendOpenAIError(
          response,
          invalidRequest(404, `Invalid URL (${request.method} ${request.url.pathname})`),
        );
        return;
      }
      const authRefusal = bearerRefusal(headerValue(request.headers, 'authorization'), [apiKey]);
      if (authRefusal) {
        sendOpenAIError(response, authRefusal);
        return;
      }
      if (answerInjectedFailure(request, response)) return;
      if (route === 'GET /v1/models') {
        sendJson(response, 200, { object: 'list', data: models.map(modelListEntry) });
        return;
      }
      const parsed = objectBody(request);
      if ('refusal' in parsed) {
        sendOpenAIError(response, parsed.refusal);
        return;
      }
      const { body } = parsed;
      const refusal = modelRefusal(body, models);
      if (refusal) {
        sendOpenAIError(response, refusal);
        return;
      }
      const model = String(body['model']);
      if (route === 'POST /v1/chat/completions') {
        await answerChatCompletion(body, response, {
          vendor: 'openai',
          underlyingModel: model,
          answerModel: model,
          cache,
          extras: { serviceTier: 'default' },
        });
        return;
      }
      await answerResponses(body, response, model, cache);
    },
    { port: options.port },
  );
}

async function answerResponses(
  body: Record<string, unknown>,
  response: ServerResponse,
  model: string,
  cache: PromptPrefixCache,
): Promise<void> {
  const reasoning = isReasoningModel(model);
  const refusal = validateResponsesRequest(body, reasoning);
  if (refusal) {
    sendOpenAIError(response, refusal);
    return;
  }
  const promptText = JSON.stringify([body['instructions'] ?? null, body['input'], body['tools'] ?? null]);
  const plan = planAnswer({
    vendor: 'openai',
    turns: body['input'],
    tools: body['tools'],
    toolChoice: body['tool_choice'],
    reasoning,
    promptText,
  });
  const context = { plan, model, cachedTokens: cache.lookupAndStore(promptText), body, seed: promptText };
  if (body['stream'] === true) await streamResponse(response, context);
  else sendResponse(response, context);
}
