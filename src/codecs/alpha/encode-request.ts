/** Canonical request → an A upstream call (brief "Sampling decision table" for A). */
import {
  invalidRequest,
  type ChatRequest,
  type JsonObject,
  type Sampling,
  type ToolChoice,
} from '../../ir/index.ts';
import type { UpstreamRequest, UpstreamTarget } from '../codec.ts';
import { cacheMarkerWarning } from '../shared/cache-markers.ts';
import { droppedExtensionWarnings } from '../shared/warnings.ts';
import { encodeMessages } from './encode-messages.ts';
import { encodeReasoning, encodeResponseFormat } from './output-options.ts';
import { chatCompletionsPath, type AlphaTool, type AlphaToolChoice } from './wire.ts';

const maxStopSequences = 4;
const maxTemperature = 2;

export function upstreamHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey !== undefined) headers.authorization = `Bearer ${target.apiKey}`;
  return headers;
}

/**
 * OpenAI's reasoning models (o-series, gpt-5) refuse `max_tokens` and any temperature or top_p
 * but the default 1 with a 400; the catalog's `reasoning` flag names the others.
 */
const reasoningModelId = /^(o1|o3|o4|gpt-5)/;

export function isReasoningModel(target: UpstreamTarget): boolean {
  return target.reasoning === true || reasoningModelId.test(target.model);
}

/** A reasoning model's sampling: its own output-cap field, the default temperature and top_p only. */
function encodeReasoningSampling(sampling: Sampling, body: JsonObject, warnings: string[]): void {
  if (sampling.maxOutputTokens !== undefined) body.max_completion_tokens = sampling.maxOutputTokens;
  for (const [field, value] of [
    ['temperature', sampling.temperature],
    ['top_p', sampling.topP],
  ] as const) {
    if (value !== undefined && value !== 1)
      warnings.push(`${field} is not supported by reasoning models (only the default 1) and was dropped`);
  }
}

function encodeSampling(sampling: Sampling, body: JsonObject, warnings: string[], reasoning: boolean): void {
  if (reasoning) encodeReasoningSampling(sampling, body, warnings);
  else encodePlainSampling(sampling, body, warnings);
  encodeCommonSampling(sampling, body, warnings);
}

function encodePlainSampling(sampling: Sampling, body: JsonObject, warnings: string[]): void {
  if (sampling.maxOutputTokens !== undefined) body.max_tokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) {
    body.temperature = Math.min(sampling.temperature, maxTemperature);
    if (sampling.temperature > maxTemperature) {
      warnings.push(`temperature ${sampling.temperature} is above the alpha maximum and was clamped to 2`);
    }
  }
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
}

function encodeCommonSampling(sampling: Sampling, body: JsonObject, warnings: string[]): void {
  if (sampling.topK !== undefined) warnings.push('top_k has no equivalent for alpha models and was dropped');
  const stop = sampling.stopSequences;
  if (stop !== undefined) {
    if (stop.length > maxStopSequences) {
      throw invalidRequest(
        `stop: alpha models accept at most ${maxStopSequences} stop sequences, ${stop.length} were given`,
        'stop',
      );
    }
    body.stop = stop;
  }
  if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.candidateCount !== undefined) body.n = sampling.candidateCount;
}

function encodeToolChoice(choice: ToolChoice): AlphaToolChoice {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

/** A's function-name rule (`a-z A-Z 0-9 _ -`, at most 64), checked so a bad name is a clear 400. */
const alphaToolName = /^[a-zA-Z0-9_-]{1,64}$/;

function checkToolName(name: string, position: number): void {
  if (alphaToolName.test(name)) return;
  throw invalidRequest(
    `tools[${position}].name: alpha models accept function names of 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(name)}`,
    `tools[${position}].name`,
  );
}

/** A functions take an object schema; a schema without a type is one. */
function parametersSchema(parameters: JsonObject, position: number): JsonObject {
  if (parameters.type === undefined) return { type: 'object', ...parameters };
  if (parameters.type === 'object') return parameters;
  throw invalidRequest(
    `tools[${position}].parameters: alpha models take function parameters only as an object schema, not type ${JSON.stringify(parameters.type)}`,
    `tools[${position}].parameters`,
  );
}

/** A rejects `tool_choice` and `parallel_tool_calls` without `tools`, so they go only with tools. */
function encodeTools(request: ChatRequest, body: JsonObject): void {
  if (request.tools.length === 0) return;
  body.tools = request.tools.map((definition, position): AlphaTool => {
    checkToolName(definition.name, position);
    const tool = { ...definition, parameters: parametersSchema(definition.parameters, position) };
    const fn: AlphaTool['function'] =
      tool.description === undefined
        ? { name: tool.name, parameters: tool.parameters }
        : { name: tool.name, description: tool.description, parameters: tool.parameters };
    if (tool.strict !== undefined) fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
  if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
}

export function encodeRequest(request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  const warnings = [...droppedExtensionWarnings(request, 'alpha'), ...cacheMarkerWarning(request, 'alpha')];
  const body: JsonObject = { model: target.model, messages: encodeMessages(request, warnings) };
  encodeSampling(request.sampling, body, warnings, isReasoningModel(target));
  encodeTools(request, body);
  if (request.stream) {
    body.stream = true;
    // Always: the gateway meters every stream; the client-facing encoder decides what to show.
    body.stream_options = { include_usage: true };
  }
  if (request.responseFormat !== undefined)
    body.response_format = encodeResponseFormat(request.responseFormat);
  encodeReasoning(request, body, warnings);
  for (const [key, value] of Object.entries(request.extensions.alpha ?? {})) {
    if (!Object.hasOwn(body, key)) body[key] = value;
  }
  return {
    path: chatCompletionsPath,
    headers: upstreamHeaders(target),
    body: JSON.stringify(body),
    warnings,
    call: { model: target.model, stream: request.stream, operation: 'chat' },
  };
}
