/**
 * An upstream B request (`/v1/messages`) as Bedrock's InvokeModel takes it: the Messages body
 * without `model` (it is in the path) and `stream` (the path chooses), with
 * `anthropic_version: "bedrock-2023-05-31"` (the gateway's own, never a client's header) and the
 * beta-features header as `anthropic_beta`. The key and version headers stay behind: Bedrock
 * authenticates by signature or its own API key.
 */
import { GatewayError, isJsonObject, type JsonObject } from '../../ir/index.ts';

export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/** Headers of the B request that mean nothing to Bedrock (its credential travels otherwise). */
const droppedHeaders = new Set([
  'x-api-key',
  'authorization',
  'beta-version',
  'anthropic-version',
  'anthropic-beta',
]);

export function invokePath(model: string, stream: boolean): string {
  return `/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
}

export function invokeHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (!droppedHeaders.has(name.toLowerCase())) kept[name] = value;
  return kept;
}

export function invokeBody(body: string, betaFeatures: string | undefined): string {
  return JSON.stringify(invokeFields(body, betaFeatures));
}

/** The InvokeModel body as an object (CountTokens wraps it: `count-tokens.ts`). */
export function invokeFields(body: string, betaFeatures: string | undefined): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new GatewayError('internal', 'the Bedrock request body is not JSON', { cause: error });
  }
  if (!isJsonObject(parsed))
    throw new GatewayError('internal', 'the Bedrock request body is not a JSON object');
  const { model: _model, stream: _stream, ...rest } = parsed;
  const invoke: JsonObject = { ...rest, anthropic_version: bedrockAnthropicVersion };
  const features = (betaFeatures ?? '')
    .split(',')
    .map((feature) => feature.trim())
    .filter((feature) => feature !== '');
  if (features.length > 0) invoke.anthropic_beta = features;
  return invoke;
}
