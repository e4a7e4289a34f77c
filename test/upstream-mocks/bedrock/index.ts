/**
 * A strict Amazon Bedrock Runtime on loopback: SigV4 checked by signing again with the test
 * credentials (`sigv4.ts`) or a Bedrock API key as a bearer, InvokeModel for Anthropic models with
 * Bedrock's body rules (`anthropic_version: "bedrock-2023-05-31"`, no `model`, no `stream`) and its
 * binary event stream (`chunk` events with base64 `bytes`, `amazon-bedrock-invocationMetrics` on
 * `message_stop`), Converse and ConverseStream (`converse.ts`), errors as `{"message"}` with
 * `x-amzn-errortype`, CountTokens (`count-tokens.ts`). `x-mock-fail: <status>` (with `x-mock-exception: <Name>`) injects a failure;
 * `x-mock-stream-exception: <exceptionType>` ends a stream with that exception after its first event.
 */
import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { anthropicStreamEvents, buildAnthropicMessage } from '../anthropic/answers.ts';
import type { MessagesRequest } from '../anthropic/validate.ts';
import {
  requestedFailure,
  sendJson,
  startMockServer,
  type MockRequest,
  type MockUpstream,
} from '../kit/server.ts';
import { PrefixCache } from '../kit/text.ts';
import { buildConverseAnswer, converseProblem, converseStreamEvents } from './converse.ts';
import { eventFrame, exceptionFrame, padding, startEventStream } from './event-stream.ts';
import { countTokensAnswer } from './count-tokens.ts';
import { anthropicModel, invokeProblem } from './invoke-rules.ts';
import { checkSignature, type AwsTestCredentials } from './sigv4.ts';

export interface BedrockMockOptions {
  region?: string;
  /** A fixed port (a mock run by hand); a free one when absent. */
  port?: number | undefined;
  credentials?: AwsTestCredentials;
  /** A Bedrock API key accepted as `Authorization: Bearer …`. */
  apiKey?: string;
}

export const testCredentials: AwsTestCredentials = {
  accessKeyId: 'MOCKAKIDBEDROCK00001',
  secretAccessKey: 'mock/secret/key/for/bedrock/tests/0000000',
};

const exceptionByStatus: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const injectedMessages: Record<string, string> = {
  ThrottlingException: 'Too many requests, please wait before trying again.',
  ModelNotReadyException: 'Model is not ready for inference. Wait and try your request again.',
  ServiceUnavailableException: 'Bedrock is unable to process your request.',
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  ResourceNotFoundException: 'Model not found. Check the model identifier and try again.',
  ValidationException: 'The provided model identifier is invalid.',
};

export function sendBedrockError(
  response: ServerResponse,
  status: number,
  exception: string,
  message: string,
): void {
  sendJson(
    response,
    status,
    { message },
    {
      'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': randomUUID(),
    },
  );
}

const routePattern =
  /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/;

async function authenticate(
  request: MockRequest,
  response: ServerResponse,
  options: Required<Omit<BedrockMockOptions, 'port'>>,
): Promise<boolean> {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  if (bearer !== null) {
    if (bearer[1] === options.apiKey) return true;
    sendBedrockError(
      response,
      403,
      'AccessDeniedException',
      'Authentication failed: Please make sure your API Key is valid.',
    );
    return false;
  }
  const refusal = await checkSignature(request, options.credentials, options.region);
  if (refusal === undefined) return true;
  sendBedrockError(response, refusal.status, refusal.exception, refusal.message);
  return false;
}

function streamFrames(response: ServerResponse, frames: Uint8Array[], exception: string | undefined): void {
  startEventStream(response, { 'x-amzn-requestid': randomUUID() });
  for (const [index, frame] of frames.entries()) {
    response.write(frame);
    if (exception !== undefined && index === 0) {
      response.end(
        exceptionFrame(
          exception,
          injectedMessages[exception.charAt(0).toUpperCase() + exception.slice(1)] ??
            'The model stream failed.',
        ),
      );
      return;
    }
  }
  response.end();
}

function answerInvoke(
  response: ServerResponse,
  request: MockRequest,
  model: string,
  stream: boolean,
  cache: PrefixCache,
): void {
  const body = request.body as MessagesRequest;
  const message = buildAnthropicMessage({ ...body, model }, model, cache);
  if (!stream) {
    sendJson(response, 200, message, { 'x-amzn-requestid': randomUUID() });
    return;
  }
  const frames = anthropicStreamEvents(message).map(({ data }) => {
    const event =
      data.type === 'message_stop'
        ? {
            ...data,
            'amazon-bedrock-invocationMetrics': {
              inputTokenCount: message.usage.input_tokens,
              outputTokenCount: message.usage.output_tokens,
              invocationLatency: 512,
              firstByteLatency: 128,
            },
          }
        : data;
    return eventFrame('chunk', {
      bytes: Buffer.from(JSON.stringify(event)).toString('base64'),
      p: padding(),
    });
  });
  streamFrames(response, frames, request.headers['x-mock-stream-exception']);
}

function answerConverse(
  response: ServerResponse,
  request: MockRequest,
  model: string,
  stream: boolean,
  cache: PrefixCache,
): void {
  const answer = buildConverseAnswer(model, request.body as Record<string, unknown>, cache);
  if (!stream) {
    sendJson(
      response,
      200,
      {
        output: { message: { role: 'assistant', content: answer.content } },
        stopReason: answer.stopReason,
        usage: answer.usage,
        metrics: { latencyMs: 412 },
      },
      { 'x-amzn-requestid': randomUUID() },
    );
    return;
  }
  const frames = converseStreamEvents(answer).map(([type, payload]) =>
    eventFrame(type, { ...payload, p: padding() }),
  );
  streamFrames(response, frames, request.headers['x-mock-stream-exception']);
}

export async function startBedrockMock(options: BedrockMockOptions = {}): Promise<MockUpstream> {
  const settings: Required<Omit<BedrockMockOptions, 'port'>> = {
    region: options.region ?? 'us-east-1',
    credentials: options.credentials ?? testCredentials,
    apiKey: options.apiKey ?? 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=',
  };
  const cache = new PrefixCache();
  return startMockServer(
    async (request, response) => {
      if (!(await authenticate(request, response, settings))) return;
      const route = request.method === 'POST' ? routePattern.exec(request.url.pathname) : null;
      if (route === null) {
        sendBedrockError(response, 404, 'UnknownOperationException', 'Unknown operation');
        return;
      }
      const failure = requestedFailure(request.headers);
      if (failure !== undefined) {
        const exception =
          request.headers['x-mock-exception'] ?? exceptionByStatus[failure] ?? 'InternalServerException';
        sendBedrockError(
          response,
          failure,
          exception,
          injectedMessages[exception] ?? 'Internal server error',
        );
        return;
      }
      const model = decodeURIComponent(route[1] ?? '');
      const operation = route[2] ?? '';
      const stream = operation.endsWith('-stream');
      if (request.jsonError !== undefined) {
        sendBedrockError(
          response,
          400,
          'ValidationException',
          'Malformed input request, please reformat your input and try again.',
        );
        return;
      }
      if (operation === 'count-tokens') {
        const counted = countTokensAnswer(request.body, model);
        if ('problem' in counted) sendBedrockError(response, 400, 'ValidationException', counted.problem);
        else sendJson(response, 200, counted, { 'x-amzn-requestid': randomUUID() });
        return;
      }
      if (operation.startsWith('invoke')) {
        if (!anthropicModel.test(model)) {
          sendBedrockError(response, 400, 'ValidationException', 'The provided model identifier is invalid.');
          return;
        }
        const problem = invokeProblem(request.body, model);
        if (problem !== undefined) {
          sendBedrockError(response, 400, 'ValidationException', problem);
          return;
        }
        answerInvoke(response, request, model, stream, cache);
        return;
      }
      const problem = converseProblem(request.body);
      if (problem !== undefined) {
        sendBedrockError(response, 400, 'ValidationException', problem);
        return;
      }
      answerConverse(response, request, model, stream, cache);
    },
    { port: options.port },
  );
}
