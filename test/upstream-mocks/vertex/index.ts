/**
 * A strict Vertex AI on loopback: its own OAuth2 token endpoint (POST /token, see oauth.ts), bearer
 * access tokens only, one configured project, the publishers/google routes in Gemini shapes (every
 * content with a role) and the publishers/anthropic rawPredict routes in Anthropic shapes with
 * `anthropic_version` in the body and the model in the URL.
 */
import type { ServerResponse } from 'node:http';
import { answerMessages, injectedFailureMessage, sendAnthropicError } from '../anthropic/index.ts';
import { countInputTokens } from '../anthropic/answers.ts';
import {
  countTokensFields,
  isClaudeModel,
  messagesFields,
  messagesRequestProblem,
  type MessagesRequest,
} from '../anthropic/validate.ts';
import { answerGeminiCall, type GeminiMethod } from '../gemini/index.ts';
import { isGeminiModel } from '../gemini/validate.ts';
import { googleFailureMessage, sendGoogleError } from '../kit/google-errors.ts';
import {
  requestedFailure,
  sendJson,
  startMockServer,
  type MockRequest,
  type MockUpstream,
} from '../kit/server.ts';
import { PrefixCache, randomId } from '../kit/text.ts';
import { generateServiceAccountKey, TokenAuthority, type ServiceAccountKey } from './oauth.ts';

export interface VertexMockOptions {
  projectId?: string;
  /** A fixed port (a mock run by hand); a free one when absent. */
  port?: number | undefined;
  minimumCachedTokens?: number;
}

export interface VertexMock extends MockUpstream {
  projectId: string;
  tokenUri: string;
  /** A service-account key the mock trusts, its token_uri pointing at the mock. */
  serviceAccountKey: ServiceAccountKey;
  /** Makes another throwaway key (e.g. of another project's account) the mock trusts. */
  newServiceAccountKey(projectId?: string): ServiceAccountKey;
}

const missingCredential =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const invalidCredential =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const apiKeysUnsupported =
  'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal.';

const modelPath =
  /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

function errorInfo(reason: string): unknown {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain: 'googleapis.com',
    metadata: {
      service: 'aiplatform.googleapis.com',
      method: 'google.cloud.aiplatform.v1.PredictionService.GenerateContent',
    },
  };
}

/** Refuses a request whose credentials Vertex would refuse; true when it did. */
function refusedCredentials(
  request: MockRequest,
  response: ServerResponse,
  authority: TokenAuthority,
): boolean {
  if (request.headers['x-goog-api-key'] !== undefined || request.url.searchParams.has('key')) {
    sendGoogleError(response, 401, apiKeysUnsupported, [errorInfo('CREDENTIALS_MISSING')]);
    return true;
  }
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer === undefined) {
    sendGoogleError(response, 401, missingCredential, [errorInfo('CREDENTIALS_MISSING')]);
    return true;
  }
  if (authority.principalOf(bearer) === undefined) {
    sendGoogleError(response, 401, invalidCredential, [errorInfo('ACCESS_TOKEN_TYPE_UNSUPPORTED')]);
    return true;
  }
  return false;
}

function answerAnthropicCall(
  request: MockRequest,
  response: ServerResponse,
  model: string,
  method: string,
  cache: PrefixCache,
): void {
  const counting = model === 'count-tokens';
  if (method !== 'rawPredict' && !(method === 'streamRawPredict' && !counting)) {
    sendGoogleError(response, 400, `Invalid method ${method} for publisher model.`);
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
  const body = request.body as MessagesRequest & { model?: string };
  if (counting) {
    // count-tokens:rawPredict names the model in the body (it has none in the URL); anthropic_version is optional.
    const fields = new Set([...countTokensFields, 'anthropic_version']);
    const problem = messagesRequestProblem(body, { fields, vertex: false, needsMaxTokens: false });
    if (problem) {
      sendAnthropicError(response, 400, problem);
      return;
    }
    if (!isClaudeModel(body.model ?? '')) {
      sendAnthropicError(response, 404, `model: ${String(body.model)}`);
      return;
    }
    sendJson(response, 200, { input_tokens: countInputTokens(body) });
    return;
  }
  const problem = messagesRequestProblem(body, {
    fields: messagesFields,
    vertex: true,
    needsMaxTokens: true,
  });
  if (problem) {
    sendAnthropicError(response, 400, problem);
    return;
  }
  answerMessages(response, { ...body, model }, model, cache, { 'request-id': randomId('req_vrtx_011C') });
}

export async function startVertexMock(options: VertexMockOptions = {}): Promise<VertexMock> {
  const projectId = options.projectId ?? 'mock-project';
  const cache = new PrefixCache();
  // The token endpoint's audience is the server's own URL, known once it listens.
  const started: { authority?: TokenAuthority } = {};
  const upstream = await startMockServer(
    (request, response) => {
      const authority = started.authority;
      if (!authority) {
        sendGoogleError(response, 503, 'starting');
        return;
      }
      if (request.method === 'POST' && request.url.pathname === '/token') {
        authority.answerTokenRequest(request, response);
        return;
      }
      if (refusedCredentials(request, response, authority)) return;
      const match = modelPath.exec(request.url.pathname);
      if (!match || request.method !== 'POST') {
        sendGoogleError(
          response,
          404,
          `The requested URL ${request.url.pathname} was not found on this server.`,
        );
        return;
      }
      const [, apiVersion = 'v1', project = '', location = '', publisher = '', model = '', method = ''] =
        match;
      const resource = `projects/${project}/locations/${location}/publishers/${publisher}/models/${model}`;
      if (project !== projectId) {
        sendGoogleError(
          response,
          403,
          `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).`,
          [errorInfo('IAM_PERMISSION_DENIED')],
        );
        return;
      }
      const failure = requestedFailure(request.headers);
      if (failure !== undefined && publisher === 'anthropic') {
        sendAnthropicError(response, failure, injectedFailureMessage(failure));
        return;
      }
      if (failure !== undefined) {
        sendGoogleError(response, failure, googleFailureMessage(failure));
        return;
      }
      if (publisher === 'anthropic') {
        if (apiVersion !== 'v1' || (!isClaudeModel(model) && model !== 'count-tokens')) {
          sendGoogleError(response, 404, `Publisher Model \`${resource}\` not found.`);
          return;
        }
        answerAnthropicCall(request, response, model, method, cache);
        return;
      }
      if (
        !['generateContent', 'streamGenerateContent', 'countTokens'].includes(method) ||
        !isGeminiModel(model)
      ) {
        sendGoogleError(response, 404, `Publisher Model \`${resource}\` not found.`);
        return;
      }
      answerGeminiCall(request, response, {
        model,
        method: method as GeminiMethod,
        apiVersion,
        vertex: true,
        cache,
        minimumCachedTokens: options.minimumCachedTokens ?? 1024,
      });
    },
    { port: options.port },
  );
  const tokenUri = `${upstream.url}/token`;
  const trustedAuthority = new TokenAuthority(tokenUri);
  started.authority = trustedAuthority;
  const newServiceAccountKey = (keyProjectId = projectId): ServiceAccountKey => {
    const { key, publicKey } = generateServiceAccountKey(tokenUri, keyProjectId);
    trustedAuthority.trust(key.client_email, publicKey);
    return key;
  };
  return {
    ...upstream,
    projectId,
    tokenUri,
    serviceAccountKey: newServiceAccountKey(),
    newServiceAccountKey,
  };
}
