/**
 * Count-tokens on Bedrock through its CountTokens API (`POST /model/{modelId}/count-tokens`): the B
 * request's InvokeModel body (as `invoke.ts` makes it for a chat, `max_tokens` added when the count
 * request has none: InvokeModel requires it) travels base64-encoded as
 * `{"input":{"invokeModel":{"body":…}}}` (a blob member of AWS's JSON protocol, as every AWS SDK
 * sends it), signed like a chat; `{"inputTokens": N}` comes back and is handed to the B codec as
 * the Messages API's `{"input_tokens": N}`.
 *
 * CountTokens takes a foundation model, not an inference profile: a cross-Region profile
 * (`us.anthropic.…`, or its ARN) is counted as the foundation model it routes to. AWS supports it
 * for Anthropic's Claude models only (the user guide's list: Claude 3.5 Haiku, 3.5 Sonnet, 3.5
 * Sonnet v2, 3.7 Sonnet, Opus 4, Sonnet 4), and not for every Claude model (those launched for
 * cross-Region inference only are refused). Anything else is counted locally by the gateway
 * (`gateway/count-tokens.ts`, answered with `x-modelgate-token-count: estimate`): models on
 * Converse, an application inference profile or provisioned throughput (no foundation model in
 * the id), and a model Bedrock refused to count (a ValidationException saying it is not
 * supported), remembered so it is not asked again.
 */
import type { UpstreamCall, UpstreamRequest } from '../../codecs/codec.ts';
import { GatewayError, isJsonObject } from '../../ir/index.ts';
import type { UpstreamResponse, UpstreamTransport } from '../../upstream/transport.ts';
import { errorAnswer, jsonAnswer } from './answers.ts';
import { authorizeRequest, type BedrockAuthorizer } from './auth.ts';
import { exceptionName } from './errors.ts';
import { invokeFields } from './invoke.ts';

export interface CountCall {
  request: UpstreamRequest;
  call: UpstreamCall;
  signal: AbortSignal;
  authorizer: Promise<BedrockAuthorizer>;
  /** Models Bedrock refused to count, shared by the transport's calls. */
  unsupported: Set<string>;
}

const geoPrefixed = /^[a-z]{2,6}\.(anthropic\.claude-[A-Za-z0-9.:-]+)$/;
const bareModel = /^anthropic\.claude-[A-Za-z0-9.:-]+$/;
const foundationArn = /^arn:aws[a-z-]*:bedrock:[^:]*::foundation-model\/anthropic\.claude-/;
const profileArn =
  /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:inference-profile\/[a-z]{2,6}\.(anthropic\.claude-[A-Za-z0-9.:-]+)$/;

/** The foundation model CountTokens is asked about; undefined when the id names none. */
export function countModelId(model: string): string | undefined {
  if (bareModel.test(model) || foundationArn.test(model)) return model;
  return geoPrefixed.exec(model)?.[1] ?? profileArn.exec(model)?.[1];
}

/** CountTokens' request body for a B (Messages) request body. */
export function countTokensBody(messagesBody: string, betaFeatures: string | undefined): string {
  const fields = invokeFields(messagesBody, betaFeatures);
  // The count needs no output cap, InvokeModel's body does (above a thinking budget); it does not
  // change the input's tokens.
  const thinking = isJsonObject(fields.thinking) ? fields.thinking.budget_tokens : undefined;
  const cap = typeof thinking === 'number' ? thinking + 1 : 1;
  const body = JSON.stringify({ max_tokens: cap, ...fields });
  return JSON.stringify({ input: { invokeModel: { body: Buffer.from(body).toString('base64') } } });
}

/** Bedrock's answer read as B's count; a body without a count is an upstream fault. */
function betaCount(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const tokens = isJsonObject(parsed) ? parsed.inputTokens : undefined;
  if (typeof tokens !== 'number' || !Number.isSafeInteger(tokens) || tokens < 0)
    throw new GatewayError('upstream', 'Bedrock sent a token count the gateway cannot read');
  return JSON.stringify({ input_tokens: tokens });
}

function notCountable(model: string): GatewayError {
  return new GatewayError('upstream', `Bedrock does not count tokens for ${model}`);
}

/** Bedrock's refusal of the model itself (not of the request): `…doesn't support counting tokens`. */
function refusesModel(response: UpstreamResponse, text: string): boolean {
  if (exceptionName(response.headers['x-amzn-errortype']) !== 'ValidationException') return false;
  let message: unknown;
  try {
    const parsed: unknown = JSON.parse(text);
    message = isJsonObject(parsed) ? parsed.message : undefined;
  } catch {
    message = undefined;
  }
  return typeof message === 'string' && /\bsupport/i.test(message);
}

/**
 * Asks CountTokens; throws (so the gateway estimates) for a model Bedrock cannot count. Other
 * refusals come back in B's error shape, as a chat's would.
 */
export async function countTokens(
  http: UpstreamTransport,
  baseUrl: string,
  count: CountCall,
): Promise<UpstreamResponse> {
  const { request, call } = count;
  const modelId = request.path.startsWith('/model/') ? undefined : countModelId(call.model);
  if (modelId === undefined || count.unsupported.has(modelId)) throw notCountable(call.model);
  const path = `/model/${encodeURIComponent(modelId)}/count-tokens`;
  const body = countTokensBody(request.body, request.headers['anthropic-beta']);
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const authorized = await authorizeRequest(count.authorizer, new URL(baseUrl + path), headers, body);
  const response = await http.send(baseUrl, { ...request, path, headers: authorized, body }, count.signal);
  const text = await response.text();
  if (response.status >= 400) {
    if (response.status === 400 && refusesModel(response, text)) {
      count.unsupported.add(modelId);
      throw notCountable(call.model);
    }
    return errorAnswer(response, text, 'invoke');
  }
  return jsonAnswer(response.status, response.headers, betaCount(text));
}
