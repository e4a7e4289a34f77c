/** A chat-completions request body → canonical request, with A's own ranges enforced as 400s. */
import { invalidRequest, type ChatRequest, type JsonObject, type Sampling } from '../../ir/index.ts';
import type { SurfaceInput } from '../codec.ts';
import {
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalStringList,
  requireObject,
  requireString,
  unknownFields,
} from '../shared/validate.ts';
import { decodeMessages } from './decode-messages.ts';
import { decodeReasoningEffort, decodeResponseFormat } from './output-options.ts';
import { decodeTools } from './decode-tools.ts';

/** Fields with a canonical meaning; everything else rides along in `extensions.alpha`. */
const knownFields: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_completion_tokens',
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'functions',
  'function_call',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
]);

const maxInteger = Number.MAX_SAFE_INTEGER;

function decodeSampling(body: JsonObject): Sampling {
  const sampling: Sampling = {};
  const maxOutput =
    optionalInteger(body.max_completion_tokens, 'max_completion_tokens', 1, maxInteger) ??
    optionalInteger(body.max_tokens, 'max_tokens', 1, maxInteger);
  if (maxOutput !== undefined) sampling.maxOutputTokens = maxOutput;
  const temperature = optionalNumber(body.temperature, 'temperature', 0, 2);
  if (temperature !== undefined) sampling.temperature = temperature;
  const topP = optionalNumber(body.top_p, 'top_p', 0, 1);
  if (topP !== undefined) sampling.topP = topP;
  // Not an A field, but vLLM-style clients send it; -1 and 0 mean "disabled" there.
  const topK = optionalInteger(body.top_k, 'top_k', -1, maxInteger);
  if (topK !== undefined && topK > 0) sampling.topK = topK;
  const stop = optionalStringList(body.stop, 'stop', 4);
  if (stop !== undefined) sampling.stopSequences = stop;
  const presence = optionalNumber(body.presence_penalty, 'presence_penalty', -2, 2);
  if (presence !== undefined) sampling.presencePenalty = presence;
  const frequency = optionalNumber(body.frequency_penalty, 'frequency_penalty', -2, 2);
  if (frequency !== undefined) sampling.frequencyPenalty = frequency;
  const seed = optionalInteger(body.seed, 'seed', Number.MIN_SAFE_INTEGER, maxInteger);
  if (seed !== undefined) sampling.seed = seed;
  const n = optionalInteger(body.n, 'n', 1, 128);
  if (n !== undefined) sampling.candidateCount = n;
  return sampling;
}

/** `stream_options.include_usage` only means something on a stream. */
function decodeIncludeUsage(body: JsonObject, stream: boolean): boolean {
  if (body.stream_options === undefined || body.stream_options === null) return false;
  const options = requireObject(body.stream_options, 'stream_options');
  return stream && optionalBoolean(options.include_usage, 'stream_options.include_usage') === true;
}

/**
 * `response_format` and `reasoning_effort` become canonical. Same-family (lenient), a value this
 * gateway does not know (a newer format type or effort) rides along for the A upstream to judge.
 */
function decodeOutputOptions(
  body: JsonObject,
  request: ChatRequest,
  rest: JsonObject,
  lenient: boolean,
): void {
  try {
    const responseFormat = decodeResponseFormat(body.response_format);
    if (responseFormat !== undefined) request.responseFormat = responseFormat;
  } catch (error) {
    if (!lenient || body.response_format === undefined) throw error;
    rest.response_format = body.response_format;
  }
  try {
    decodeReasoningEffort(body, request);
  } catch (error) {
    if (!lenient || body.reasoning_effort === undefined) throw error;
    rest.reasoning_effort = body.reasoning_effort;
  }
}

export function decodeRequest(input: SurfaceInput): ChatRequest {
  const body = requireObject(input.body, 'body');
  const model = requireString(body.model, 'model');
  if (model === '') throw invalidRequest('model: must not be empty', 'model');
  const lenient = input.lenient === true;
  const { system, messages } = decodeMessages(body.messages, lenient);
  const { tools, toolChoice, legacyFunctions } = decodeTools(body, lenient);
  const stream = optionalBoolean(body.stream, 'stream') ?? false;
  const request: ChatRequest = {
    model,
    system,
    messages,
    tools,
    sampling: decodeSampling(body),
    stream,
    includeUsage: decodeIncludeUsage(body, stream),
    extensions: {},
  };
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (legacyFunctions) request.legacyFunctions = true;
  const parallel = optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const rest = unknownFields(body, knownFields);
  decodeOutputOptions(body, request, rest, lenient);
  if (Object.keys(rest).length > 0) request.extensions.alpha = rest;
  return request;
}
