/** A beta surface request body → the canonical request. Enforces B's own ranges with 400s. */
import type { SurfaceInput } from '../codec.ts';
import type { ChatRequest, Sampling, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { invalidRequest, type JsonObject } from '../../ir/index.ts';
import {
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalString,
  requireArray,
  requireObject,
  requireString,
  unknownFields,
} from '../shared/validate.ts';
import { withCacheControl } from './content-blocks.ts';
import { decodeMessages, decodeSystem } from './decode-messages.ts';
import { decodeOutputOptions } from './output-options.ts';

const knownFields: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'tools',
  'tool_choice',
]);

export function decodeRequest(input: SurfaceInput): ChatRequest {
  const body = requireObject(input.body, 'body');
  const model = requireString(body.model ?? '', 'model');
  if (model === '') throw invalidRequest('model: field required', 'model');
  const lenient = input.lenient === true;
  const { messages, system: hoisted } = decodeMessages(body.messages, lenient);
  const request: ChatRequest = {
    model,
    system: [...decodeSystem(body.system, 'system'), ...hoisted],
    messages,
    tools: decodeTools(body.tools, lenient),
    sampling: decodeSampling(body),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    includeUsage: false,
    extensions: {},
  };
  decodeToolChoice(body.tool_choice, request);
  const extensions = unknownFields(body, knownFields);
  decodeOutputOptions(body, request, extensions);
  if (Object.keys(extensions).length > 0) request.extensions.beta = extensions;
  return request;
}

function decodeSampling(body: JsonObject): Sampling {
  if (body.max_tokens === undefined || body.max_tokens === null) {
    throw invalidRequest('max_tokens: field required', 'max_tokens');
  }
  if (typeof body.max_tokens === 'number' && body.max_tokens < 1) {
    throw invalidRequest('max_tokens: must be at least 1', 'max_tokens');
  }
  const sampling: Sampling = {};
  const maxOutputTokens = optionalInteger(body.max_tokens, 'max_tokens', 1, Number.MAX_SAFE_INTEGER);
  if (maxOutputTokens !== undefined) sampling.maxOutputTokens = maxOutputTokens;
  const temperature = optionalNumber(body.temperature, 'temperature', 0, 1);
  if (temperature !== undefined) sampling.temperature = temperature;
  const topP = optionalNumber(body.top_p, 'top_p', 0, 1);
  if (topP !== undefined) sampling.topP = topP;
  const topK = optionalInteger(body.top_k, 'top_k', 0, Number.MAX_SAFE_INTEGER);
  if (topK !== undefined) sampling.topK = topK;
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) {
    const list = requireArray(body.stop_sequences, 'stop_sequences');
    sampling.stopSequences = list.map((item, position) => requireString(item, `stop_sequences.${position}`));
  }
  return sampling;
}

function decodeTools(value: unknown, lenient: boolean): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  return requireArray(value, 'tools').flatMap((item, position) => {
    const path = `tools.${position}`;
    const tool = requireObject(item, path);
    // Server tools (`web_search_20250305`…) run inside the provider; the IR cannot carry them
    // (pass-through still forwards them: the client's own body goes upstream).
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      if (lenient) return [];
      throw invalidRequest(
        `${path}.type: server tools (${JSON.stringify(tool.type)}) are not supported`,
        `${path}.type`,
      );
    }
    const definition: ToolDefinition = {
      name: requireString(tool.name, `${path}.name`),
      parameters: requireObject(tool.input_schema, `${path}.input_schema`),
    };
    const description = optionalString(tool.description, `${path}.description`);
    if (description !== undefined) definition.description = description;
    const strict = optionalBoolean(tool.strict, `${path}.strict`);
    if (strict !== undefined) definition.strict = strict;
    return [withCacheControl(definition, tool, path)];
  });
}

/** Sets `toolChoice` and, from `disable_parallel_tool_use: true`, `parallelToolCalls: false`. */
function decodeToolChoice(value: unknown, request: ChatRequest): void {
  if (value === undefined || value === null) return;
  const choice = requireObject(value, 'tool_choice');
  request.toolChoice = readChoiceType(choice);
  if (optionalBoolean(choice.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use') === true) {
    request.parallelToolCalls = false;
  }
}

function readChoiceType(choice: JsonObject): ToolChoice {
  const type = choice.type;
  if (type === 'auto') return { type: 'auto' };
  if (type === 'any') return { type: 'required' };
  if (type === 'none') return { type: 'none' };
  if (type === 'tool') return { type: 'tool', name: requireString(choice.name, 'tool_choice.name') };
  throw invalidRequest('tool_choice.type: expected "auto", "any", "tool" or "none"', 'tool_choice.type');
}
