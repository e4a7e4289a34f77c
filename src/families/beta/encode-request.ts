/** The canonical request → an upstream beta `/v1/messages` call. */
import type { UpstreamRequest, UpstreamTarget } from '../codec.ts';
import type { ChatRequest, JsonObject, Sampling, TextPart } from '../../ir/index.ts';
import { invalidRequest } from '../../ir/index.ts';
import { droppedExtensionWarnings } from '../shared/warnings.ts';
import { withWireCacheControl, writeTextBlock } from './content-blocks.ts';
import { encodeMessages, isBlankText } from './encode-messages.ts';
import { betaVersion, messagesPath } from './wire.ts';
import type { BetaRequestBody, BetaTextBlock, BetaTool, BetaToolChoice } from './wire.ts';

/** The headers of every upstream beta call; `x-api-key` only when there is a key. */
export function upstreamHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (apiKey !== undefined) headers['x-api-key'] = apiKey;
  headers['beta-version'] = betaVersion;
  headers['content-type'] = 'application/json';
  return headers;
}

export function encodeRequest(request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  const maxTokens = request.sampling.maxOutputTokens;
  if (maxTokens === undefined) {
    throw invalidRequest('max_tokens: beta models require an output cap (max_tokens)', 'max_tokens');
  }
  const warnings: string[] = [];
  const system = encodeSystem(request.system);
  const messages = encodeMessages(request.messages);
  const body: BetaRequestBody =
    system === undefined
      ? { model: target.model, max_tokens: maxTokens, messages }
      : { model: target.model, max_tokens: maxTokens, system, messages };
  encodeSampling(request.sampling, body, warnings);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => encodeTool(tool));
    const toolChoice = encodeToolChoice(request);
    if (toolChoice !== undefined) body.tool_choice = toolChoice;
  }
  if (request.stream) body.stream = true;
  warnings.push(...droppedExtensionWarnings(request, 'beta'));
  return {
    path: messagesPath,
    headers: upstreamHeaders(target.apiKey),
    body: JSON.stringify(withExtensions(body, request.extensions.beta)),
    warnings,
  };
}

/** One plain block → the string shorthand; otherwise text blocks (markers kept). */
function encodeSystem(parts: readonly TextPart[]): string | BetaTextBlock[] | undefined {
  const kept = parts.filter((part) => !isBlankText(part));
  const only = kept[0];
  if (only === undefined) return undefined;
  if (kept.length === 1 && only.cacheControl === undefined) return only.text;
  return kept.map(writeTextBlock);
}

function encodeSampling(sampling: Sampling, body: BetaRequestBody, warnings: string[]): void {
  if (sampling.stopSequences !== undefined && sampling.stopSequences.length > 0) {
    body.stop_sequences = sampling.stopSequences;
  }
  if (sampling.temperature !== undefined) {
    body.temperature = Math.min(sampling.temperature, 1);
    if (sampling.temperature > 1) {
      warnings.push(
        `temperature ${sampling.temperature} is above the beta maximum of 1 and was clamped to 1`,
      );
    }
  }
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.topK !== undefined) body.top_k = sampling.topK;
  if (sampling.presencePenalty !== undefined) warnings.push(noEquivalent('presence_penalty'));
  if (sampling.frequencyPenalty !== undefined) warnings.push(noEquivalent('frequency_penalty'));
  if (sampling.seed !== undefined) warnings.push(noEquivalent('seed'));
  // candidateCount > 1 is not an error here: the gateway fans out one beta call per candidate.
}

function noEquivalent(field: string): string {
  return `${field} has no equivalent for beta models and was dropped`;
}

function encodeTool(tool: ChatRequest['tools'][number]): BetaTool {
  const wire: BetaTool =
    tool.description === undefined
      ? { name: tool.name, input_schema: tool.parameters }
      : { name: tool.name, description: tool.description, input_schema: tool.parameters };
  if (tool.strict !== undefined) wire.strict = tool.strict;
  return withWireCacheControl(wire, tool.cacheControl);
}

function encodeToolChoice(request: ChatRequest): BetaToolChoice | undefined {
  const disable = request.parallelToolCalls === false;
  const choice = request.toolChoice;
  if (choice === undefined) return disable ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
  switch (choice.type) {
    case 'none':
      return { type: 'none' };
    case 'auto':
      return disable ? { type: 'auto', disable_parallel_tool_use: true } : { type: 'auto' };
    case 'required':
      return disable ? { type: 'any', disable_parallel_tool_use: true } : { type: 'any' };
    case 'tool':
      return disable
        ? { type: 'tool', name: choice.name, disable_parallel_tool_use: true }
        : { type: 'tool', name: choice.name };
  }
}

/** Own-family extension fields go in beside the encoded ones, never over them. */
function withExtensions(body: BetaRequestBody, extensions: JsonObject | undefined): object {
  if (extensions === undefined) return body;
  const merged: Record<string, unknown> = { ...body };
  for (const key of Object.keys(extensions)) {
    if (!(key in merged)) merged[key] = extensions[key];
  }
  return merged;
}
