/**
 * A strict loopback stand-in for an Azure OpenAI resource (https://<name>.openai.azure.com): `api-key`
 * or an Entra bearer token; the legacy deployment route with a required, known `api-version`, and the
 * `/openai/v1` route where `model` names the deployment. Answers come from the OpenAI mock's answering
 * logic with Azure's content-filter extras; a deployment of a reasoning model follows OpenAI's reasoning rules.
 */
import type { ServerResponse } from 'node:http';
import {
  headerValue,
  type MockRequest,
  type MockUpstream,
  requestedFailure,
  sendJson,
  startMockServer,
} from '../kit/server.ts';
import { PromptPrefixCache } from '../kit/text.ts';
import { answerChatCompletion } from '../openai/chat-route.ts';
import { contentText, userContents } from '../openai/conversation.ts';
import { objectBody } from '../openai/mock.ts';
import { sendOpenAIError } from '../openai/errors.ts';
import {
  choiceFilterResults,
  outputFilterTrigger,
  promptFilterRefusal,
  promptFilterResults,
  promptFilterTrigger,
} from './content-filter.ts';

export interface AzureOpenAIMockOptions {
  apiKey?: string;
  /** The Entra ID access token accepted as `Authorization: Bearer`. */
  entraToken?: string;
  /** Also accepted: a bearer this says Entra ID issued for Azure OpenAI (`entra-authority.ts`). */
  verifyEntraToken?: ((token: string) => boolean) | undefined;
  /** Deployment name → underlying model. */
  deployments?: Record<string, string>;
  apiVersions?: readonly string[];
  port?: number | undefined;
}

export const defaultAzureMockKey = 'azure-mock-api-key-0123456789abcdef';
export const defaultAzureEntraToken = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.mock-entra-token';
export const defaultAzureDeployments: Record<string, string> = {
  'gpt-4o': 'gpt-4o',
  'chat-prod': 'gpt-4o-mini',
  reasoner: 'o4-mini',
};
/** GA and preview data-plane versions Azure publishes for chat completions. */
export const defaultAzureApiVersions: readonly string[] = [
  '2024-06-01',
  '2024-10-21',
  '2024-12-01-preview',
  '2025-01-01-preview',
  '2025-03-01-preview',
  '2025-04-01-preview',
];

function sendAzureError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { error: { code, message } });
}

/** Azure's extensions of the chat body ("On Your Data" and Defender for Cloud context). */
const azureOnlyFields: ReadonlySet<string> = new Set(['data_sources', 'user_security_context']);

/** `x-mock-fail: <status>` in Azure's own error shape (its 429 names the operation and the tier). */
function sendInjectedFailure(response: ServerResponse, status: number, apiVersion: string | null): void {
  if (status === 429) {
    const message =
      `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version ${apiVersion ?? 'v1'} have ` +
      'exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.';
    sendJson(
      response,
      429,
      { error: { code: '429', message } },
      { 'retry-after': '1', 'retry-after-ms': '1000' },
    );
    return;
  }
  const message =
    status >= 500 ? 'The server had an error while processing your request.' : `Injected failure ${status}.`;
  sendAzureError(response, status, String(status), message);
}

const resourceNotFound = (response: ServerResponse): void =>
  sendAzureError(response, 404, '404', 'Resource not found');

function authorized(
  request: MockRequest,
  options: Required<Pick<AzureOpenAIMockOptions, 'apiKey' | 'entraToken'>> &
    Pick<AzureOpenAIMockOptions, 'verifyEntraToken'>,
  v1: boolean,
): 'ok' | 'key' | 'token' {
  const apiKey = headerValue(request.headers, 'api-key');
  if (apiKey !== undefined) return apiKey === options.apiKey ? 'ok' : 'key';
  const bearer = /^Bearer\s+(.+)$/i.exec(headerValue(request.headers, 'authorization') ?? '')?.[1];
  if (bearer === undefined) return 'key';
  if (bearer === options.entraToken || (v1 && bearer === options.apiKey)) return 'ok';
  if (options.verifyEntraToken?.(bearer) === true) return 'ok';
  return 'token';
}

export function startAzureOpenAIMock(options: AzureOpenAIMockOptions = {}): Promise<MockUpstream> {
  const credentials = {
    apiKey: options.apiKey ?? defaultAzureMockKey,
    entraToken: options.entraToken ?? defaultAzureEntraToken,
    verifyEntraToken: options.verifyEntraToken,
  };
  const deployments = options.deployments ?? defaultAzureDeployments;
  const apiVersions = options.apiVersions ?? defaultAzureApiVersions;
  const cache = new PromptPrefixCache();
  return startMockServer(
    async (request, response) => {
      const { pathname, searchParams } = request.url;
      const legacy = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(pathname);
      const v1Chat = pathname === '/openai/v1/chat/completions' && request.method === 'POST';
      const v1Models = pathname === '/openai/v1/models' && request.method === 'GET';
      const legacyModels = pathname === '/openai/models' && request.method === 'GET';
      const isV1 = v1Chat || v1Models;
      if (!((legacy && request.method === 'POST') || isV1 || legacyModels)) {
        resourceNotFound(response);
        return;
      }
      if (!isV1 && !apiVersions.includes(searchParams.get('api-version') ?? '')) {
        resourceNotFound(response);
        return;
      }
      const auth = authorized(request, credentials, isV1);
      if (auth === 'key') {
        sendAzureError(
          response,
          401,
          '401',
          'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for ' +
            'an active subscription and use a correct regional API endpoint for your resource.',
        );
        return;
      }
      if (auth === 'token') {
        sendAzureError(
          response,
          401,
          '401',
          'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
        );
        return;
      }
      const failure = requestedFailure(request.headers);
      if (failure !== undefined) {
        sendInjectedFailure(response, failure, searchParams.get('api-version'));
        return;
      }
      if (v1Models || legacyModels) {
        const data = Object.entries(deployments).map(([name, model]) => ({
          id: isV1 ? name : model,
          object: 'model',
          created: 1715558400,
          owned_by: 'system',
        }));
        sendJson(response, 200, { object: 'list', data });
        return;
      }
      const parsed = objectBody(request);
      if ('refusal' in parsed) {
        sendOpenAIError(response, parsed.refusal);
        return;
      }
      const { body } = parsed;
      const deployment = legacy
        ? decodeURIComponent(legacy[1] ?? '')
        : typeof body['model'] === 'string'
          ? body['model']
          : '';
      const underlying = deployments[deployment];
      if (underlying === undefined) {
        sendAzureError(
          response,
          404,
          'DeploymentNotFound',
          'The API deployment for this resource does not exist. If you created the deployment within the last 5 ' +
            'minutes, please wait a moment and try again.',
        );
        return;
      }
      const lastUserText = contentText(userContents(body['messages']).at(-1));
      if (lastUserText.includes(promptFilterTrigger)) {
        const refusal = promptFilterRefusal();
        sendJson(response, refusal.status, refusal.body);
        return;
      }
      // The legacy route takes the model from the path; a `model` in the body is accepted and ignored there.
      await answerChatCompletion(body, response, {
        vendor: 'azure-openai',
        underlyingModel: underlying,
        answerModel: underlying,
        cache,
        extraFields: azureOnlyFields,
        extras: {
          promptFilterResults: promptFilterResults(),
          choiceFilterResults,
          outputFiltered: lastUserText.includes(outputFilterTrigger),
        },
      });
    },
    { port: options.port },
  );
}
