/**
 * A strict Gemini API (generativelanguage.googleapis.com) on loopback: API-key auth as Google's front
 * end applies it, the generateContent / streamGenerateContent / countTokens / models routes, and
 * google.rpc.Status errors with the real texts.
 */
import type { ServerResponse } from 'node:http';
import { fieldViolation, googleFailureMessage, sendGoogleError } from '../kit/google-errors.ts';
import {
  requestedFailure,
  sendJson,
  startMockServer,
  type MockRequest,
  type MockUpstream,
} from '../kit/server.ts';
import { startSse, writeGoogleDataEvent } from '../kit/sse.ts';
import { PrefixCache } from '../kit/text.ts';
import {
  buildGeminiResponse,
  countPromptTokens,
  geminiModels,
  geminiStreamChunks,
  type GeminiRequest,
} from './answers.ts';
import { countTokensProblem, field, generateContentProblem, isGeminiModel } from './validate.ts';

export interface GeminiMockOptions {
  apiKey?: string;
  /** A fixed port (a mock run by hand); a free one when absent. */
  port?: number | undefined;
  /** Smallest prefix implicit caching reports (the API's is 1024 tokens for 2.5 Flash). */
  minimumCachedTokens?: number;
}

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

export interface GeminiCall {
  model: string;
  method: GeminiMethod;
  apiVersion: string;
  vertex: boolean;
  cache: PrefixCache;
  minimumCachedTokens: number;
}

const invalidKeyMessage = 'API key not valid. Please pass a valid API key.';

/** Validates and answers one model call; shared with the Vertex mock's publishers/google routes. */
export function answerGeminiCall(request: MockRequest, response: ServerResponse, call: GeminiCall): void {
  if (request.jsonError !== undefined) {
    sendGoogleError(response, 400, `Invalid JSON payload received. ${request.jsonError}`);
    return;
  }
  const body = request.body;
  const problem =
    call.method === 'countTokens' ? countTokensProblem(body, call) : generateContentProblem(body, call);
  if (problem) {
    sendGoogleError(response, 400, problem.message, [fieldViolation(problem.message, problem.field)]);
    return;
  }
  const generateRequest = body as GeminiRequest;
  if (call.method === 'countTokens') {
    const inner =
      (field(generateRequest, 'generateContentRequest') as GeminiRequest | undefined) ?? generateRequest;
    const totalTokens = countPromptTokens(inner);
    const extra = call.vertex ? { totalBillableCharacters: totalTokens * 4 } : {};
    sendJson(response, 200, {
      totalTokens,
      ...extra,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }],
    });
    return;
  }
  const whole = buildGeminiResponse(generateRequest, {
    model: call.model,
    vendor: call.vertex ? 'vertex' : 'gemini',
    cache: call.cache,
    minimumCachedTokens: call.minimumCachedTokens,
  });
  if (call.method === 'generateContent') {
    sendJson(response, 200, whole);
    return;
  }
  const chunks = geminiStreamChunks(whole);
  if (request.url.searchParams.get('alt') === 'sse') {
    startSse(response);
    for (const chunk of chunks) writeGoogleDataEvent(response, chunk);
    response.end();
    return;
  }
  // Without alt=sse the API streams one JSON array, its elements pretty-printed and separated by ",\r\n".
  response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(`[${chunks.map((chunk) => JSON.stringify(chunk, null, 2)).join('\n,\r\n')}\n]`);
}

export function modelNotFoundMessage(model: string, apiVersion: string, method: string): string {
  return `models/${model} is not found for API version ${apiVersion}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`;
}

function refuseKey(response: ServerResponse, headers: Record<string, string>): void {
  if (/^Bearer /i.test(headers.authorization ?? '')) {
    sendGoogleError(
      response,
      401,
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ],
    );
    return;
  }
  sendGoogleError(
    response,
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'SERVICE_DISABLED',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ],
  );
}

const callPath = /^\/(v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export async function startGeminiMock(options: GeminiMockOptions = {}): Promise<MockUpstream> {
  const apiKey = options.apiKey ?? 'AIza-mock-gemini-key';
  const cache = new PrefixCache();
  const minimumCachedTokens = options.minimumCachedTokens ?? 1024;
  return startMockServer(
    (request, response) => {
      const key = request.headers['x-goog-api-key'] ?? request.url.searchParams.get('key') ?? undefined;
      if (key === undefined) {
        refuseKey(response, request.headers);
        return;
      }
      if (key !== apiKey) {
        sendGoogleError(response, 400, invalidKeyMessage, [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
            locale: 'en-US',
            message: invalidKeyMessage,
          },
        ]);
        return;
      }
      const failure = requestedFailure(request.headers);
      if (failure !== undefined) {
        sendGoogleError(response, failure, googleFailureMessage(failure));
        return;
      }
      const { pathname } = request.url;
      if (request.method === 'GET' && /^\/(v1beta|v1)\/models$/.test(pathname)) {
        sendJson(response, 200, { models: geminiModels });
        return;
      }
      const match = callPath.exec(pathname);
      if (!match || request.method !== 'POST') {
        response
          .writeHead(404, { 'content-type': 'text/html; charset=UTF-8' })
          .end('<!DOCTYPE html><title>Error 404 (Not Found)!!1</title>');
        return;
      }
      const [, apiVersion = 'v1beta', model = '', method] = match;
      if (!isGeminiModel(model)) {
        sendGoogleError(response, 404, modelNotFoundMessage(model, apiVersion, method ?? ''));
        return;
      }
      answerGeminiCall(request, response, {
        model,
        method: method as GeminiMethod,
        apiVersion,
        vertex: false,
        cache,
        minimumCachedTokens,
      });
    },
    { port: options.port },
  );
}
