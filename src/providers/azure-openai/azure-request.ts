/**
 * An alpha request as an Azure OpenAI resource takes it: the deployment's path (legacy
 * `/openai/deployments/{d}/chat/completions?api-version=…`, or `/openai/v1/chat/completions`
 * where the body's `model` names the deployment), Azure's credential header, and OpenAI's
 * reasoning rules for a deployment whose underlying model is a reasoning model (the deployment's
 * name need not say so: the provider's `deployments` setting does).
 */
import { isJsonObject, type JsonObject } from '../../ir/index.ts';
import type { UpstreamCall, UpstreamRequest } from '../../codecs/codec.ts';

/** The OpenAI models that refuse `max_tokens` and non-default sampling (o-series, gpt-5). */
export function isReasoningModel(model: string): boolean {
  return /^(o1|o3|o4|gpt-5)/.test(model);
}

/** How the resource is addressed: `v1` (the model is the deployment) or a dated api-version. */
export type AzureRoute = { readonly kind: 'v1' } | { readonly kind: 'legacy'; readonly apiVersion: string };

export type AzureCredential = { readonly header: 'api-key' | 'authorization'; readonly value: string };

function parseBody(body: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(body);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The codecs set `call`; until every codec does, the model and stream switch are read from the body. */
export function callOf(request: UpstreamRequest): UpstreamCall {
  if (request.call !== undefined) return request.call;
  const body = parseBody(request.body);
  return {
    model: typeof body.model === 'string' ? body.model : '',
    stream: body.stream === true,
    operation: 'chat',
  };
}

export function azurePath(route: AzureRoute, deployment: string): string {
  if (route.kind === 'v1') return '/openai/v1/chat/completions';
  return `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(route.apiVersion)}`;
}

/**
 * OpenAI's reasoning rules, for a deployment of a reasoning model: the output cap is
 * `max_completion_tokens`, and only the default sampling is accepted (a non-default value would be
 * a 400 the client cannot avoid when its request was translated).
 */
export function withReasoningRules(text: string): string {
  const body = parseBody(text);
  let changed = false;
  if (body.max_tokens !== undefined && body.max_tokens !== null) {
    body.max_completion_tokens ??= body.max_tokens;
    delete body.max_tokens;
    changed = true;
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    changed = true;
  }
  if (body.top_p !== undefined && body.top_p !== 1) {
    delete body.top_p;
    changed = true;
  }
  return changed ? JSON.stringify(body) : text;
}

export function toAzureRequest(
  request: UpstreamRequest,
  route: AzureRoute,
  credential: AzureCredential,
  underlyingModel: (deployment: string) => string,
): UpstreamRequest {
  const call = callOf(request);
  const headers: Record<string, string> = {};
  // The codec's own bearer key is replaced by the resource's credential.
  for (const [name, value] of Object.entries(request.headers))
    if (name.toLowerCase() !== 'authorization' && name.toLowerCase() !== 'api-key') headers[name] = value;
  headers[credential.header] = credential.value;
  const reasoning = isReasoningModel(underlyingModel(call.model));
  return {
    ...request,
    path: azurePath(route, call.model),
    headers,
    body: reasoning ? withReasoningRules(request.body) : request.body,
  };
}
