/** The canonical request → an upstream beta `/v1/messages` call. */
import type { UpstreamRequest, UpstreamTarget } from '../codec.ts';
import type { ChatRequest, JsonObject, Sampling, TextPart } from '../../ir/index.ts';
import { invalidRequest } from '../../ir/index.ts';
import { countCacheMarkers } from '../shared/cache-markers.ts';
import { droppedExtensionWarnings, imageDetailWarning } from '../shared/warnings.ts';
import { withWireCacheControl, writeTextBlock } from './content-blocks.ts';
import { encodeMessages, isBlankText } from './encode-messages.ts';
import { encodeOutputOptions } from './output-options.ts';
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
  checkCacheMarkers(request);
  const warnings: string[] = [];
  const system = encodeSystem(request.system);
  const messages = encodeMessages(request.messages);
  const body: BetaRequestBody =
    system === undefined
      ? { model: target.model, max_tokens: maxTokens, messages }
      : { model: target.model, max_tokens: maxTokens, system, messages };
  encodeSampling(request.sampling, body, warnings);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, position) => encodeTool(tool, position));
    const toolChoice = encodeToolChoice(request);
    if (toolChoice !== undefined) body.tool_choice = toolChoice;
  }
  if (request.stream) body.stream = true;
  encodeOutputOptions(request, body, warnings);
  addWarnings(warnings, droppedExtensionWarnings(request, 'beta'));
  addWarnings(warnings, imageDetailWarning(request, 'beta'));
  return {
    path: messagesPath,
    headers: upstreamHeaders(target.apiKey),
    body: JSON.stringify(withExtensions(body, request.extensions.beta)),
    warnings,
    call: { model: target.model, stream: request.stream, operation: 'chat' },
  };
}

/** Appends `more` in place (usually empty: then nothing is spread or copied). */
function addWarnings(warnings: string[], more: readonly string[]): void {
  for (const warning of more) warnings.push(warning);
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

/** B's limit on `cache_control` breakpoints per request (a 5th is a 400 upstream). */
export const maxCacheBreakpoints = 4;

export function checkCacheBreakpoints(count: number): void {
  if (count <= maxCacheBreakpoints) return;
  throw invalidRequest(
    `cache_control: beta models accept at most ${maxCacheBreakpoints} cache breakpoints per request, ${count} were given`,
    'cache_control',
  );
}

/** The request's markers within B's limit; a top-level `cache_control` (automatic caching) takes a slot too. */
export function checkCacheMarkers(request: ChatRequest): void {
  const marker = request.extensions.beta?.cache_control;
  checkCacheBreakpoints(countCacheMarkers(request) + (marker !== undefined && marker !== null ? 1 : 0));
}

/** B's tool-name rule (`^[a-zA-Z0-9_-]{1,64}$`), checked here so a bad name is a clear 400. */
const betaToolName = /^[a-zA-Z0-9_-]{1,64}$/;

/** B needs an object schema (`input_schema.type: "object"`); a schema without a type is one. */
function inputSchema(tool: ChatRequest['tools'][number], path: string): JsonObject {
  const schema = tool.parameters;
  if (schema.type === undefined) return { type: 'object', ...schema };
  if (schema.type !== 'object') {
    throw invalidRequest(
      `${path}: beta models take tool parameters only as an object schema, not type ${JSON.stringify(schema.type)}`,
      path,
    );
  }
  return schema;
}

function encodeTool(tool: ChatRequest['tools'][number], position: number): BetaTool {
  const path = `tools[${position}]`;
  if (!betaToolName.test(tool.name)) {
    throw invalidRequest(
      `${path}.name: beta models accept tool names of 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(tool.name)}`,
      `${path}.name`,
    );
  }
  const input_schema = inputSchema(tool, `${path}.parameters`);
  const wire: BetaTool =
    tool.description === undefined
      ? { name: tool.name, input_schema }
      : { name: tool.name, description: tool.description, input_schema };
  if (tool.strict !== undefined) wire.strict = tool.strict;
  return withWireCacheControl(wire, tool.cacheControl);
}

function encodeToolChoice(request: ChatRequest): BetaToolChoice | undefined {
  // A legacy `functions` client reads one `function_call` per turn: ask for one call only.
  const disable = request.parallelToolCalls === false || request.legacyFunctions === true;
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
