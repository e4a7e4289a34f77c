/**
 * A Responses API request body → the canonical request. What only a chat-completions upstream can
 * use (structured output, reasoning effort, `user`…) goes to `extensions.alpha` under its chat
 * name, exactly as the chat surface carries `response_format` (other families are warned that it
 * was dropped). Fields the gateway keeps itself (`store`, `metadata`, `previous_response_id`) are
 * read by the HTTP layer; fields no upstream receives become `notes` (warning headers).
 */
import { invalidRequest, type ChatRequest, type JsonObject, type Sampling } from '../../ir/index.ts';
import type { SurfaceInput } from '../codec.ts';
import {
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalString,
  requireObject,
  requireString,
} from '../shared/validate.ts';
import { decodeInput } from './decode-input.ts';
import { decodeToolChoice, decodeTools } from './decode-tools.ts';

/** Read here or by the HTTP layer (store, metadata, previous_response_id). */
const handledFields: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'text',
  'reasoning',
  'metadata',
  'store',
  'stream',
  'stream_options',
  'previous_response_id',
  'include',
  'truncation',
  'background',
]);

/** Same name and meaning on chat completions: forwarded to A upstreams as they are. */
const chatFields: ReadonlySet<string> = new Set([
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'service_tier',
]);

const maxInteger = Number.MAX_SAFE_INTEGER;

function decodeSampling(body: JsonObject): Sampling {
  const sampling: Sampling = {};
  const maxOutput = optionalInteger(body.max_output_tokens, 'max_output_tokens', 1, maxInteger);
  if (maxOutput !== undefined) sampling.maxOutputTokens = maxOutput;
  const temperature = optionalNumber(body.temperature, 'temperature', 0, 2);
  if (temperature !== undefined) sampling.temperature = temperature;
  const topP = optionalNumber(body.top_p, 'top_p', 0, 1);
  if (topP !== undefined) sampling.topP = topP;
  return sampling;
}

/** `text.format` → chat's `response_format`; `text.verbosity` → chat's `verbosity`. */
function decodeText(body: JsonObject, alpha: JsonObject): void {
  if (body.text === undefined || body.text === null) return;
  const text = requireObject(body.text, 'text');
  const verbosity = optionalString(text.verbosity, 'text.verbosity');
  if (verbosity !== undefined) alpha.verbosity = verbosity;
  if (text.format === undefined || text.format === null) return;
  const format = requireObject(text.format, 'text.format');
  switch (typeof format.type === 'string' ? format.type : '') {
    case 'text':
      return;
    case 'json_object':
      alpha.response_format = { type: 'json_object' };
      return;
    case 'json_schema': {
      const schema: JsonObject = {
        name: requireString(format.name, 'text.format.name'),
        schema: requireObject(format.schema, 'text.format.schema'),
      };
      const description = optionalString(format.description, 'text.format.description');
      if (description !== undefined) schema.description = description;
      const strict = optionalBoolean(format.strict, 'text.format.strict');
      if (strict !== undefined) schema.strict = strict;
      alpha.response_format = { type: 'json_schema', json_schema: schema };
      return;
    }
    default:
      throw invalidRequest(
        `text.format.type: expected "text", "json_object" or "json_schema", not ${JSON.stringify(format.type ?? null)}`,
        'text.format.type',
      );
  }
}

/** `reasoning.effort` → chat's `reasoning_effort`; summaries have no chat equivalent. */
function decodeReasoning(body: JsonObject, alpha: JsonObject, notes: string[]): void {
  if (body.reasoning === undefined || body.reasoning === null) return;
  const reasoning = requireObject(body.reasoning, 'reasoning');
  const effort = optionalString(reasoning.effort, 'reasoning.effort');
  if (effort !== undefined) alpha.reasoning_effort = effort;
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (summary !== undefined && summary !== null)
    notes.push('reasoning.summary is not available through modelgate and was ignored');
}

/** Fields accepted for compatibility that change nothing, or are refused when they would. */
function decodeRest(body: JsonObject, alpha: JsonObject, notes: string[]): void {
  if (optionalBoolean(body.background, 'background') === true)
    throw invalidRequest('background: background responses are not supported', 'background');
  const truncation = optionalString(body.truncation, 'truncation');
  if (truncation !== undefined && truncation !== 'disabled' && truncation !== 'auto')
    throw invalidRequest('truncation: expected "auto" or "disabled"', 'truncation');
  if (body.metadata !== undefined && body.metadata !== null) requireObject(body.metadata, 'metadata');
  optionalString(body.previous_response_id, 'previous_response_id');
  optionalBoolean(body.store, 'store');
  for (const field of Object.keys(body)) {
    if (handledFields.has(field)) continue;
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (chatFields.has(field)) alpha[field] = value;
    else notes.push(`${field} is not supported by modelgate's Responses API and was ignored`);
  }
}

export function decodeRequest(input: SurfaceInput): ChatRequest {
  const body = requireObject(input.body, 'body');
  const model = requireString(body.model, 'model');
  if (model === '') throw invalidRequest('model: must not be empty', 'model');
  if (body.input === undefined || body.input === null) throw invalidRequest('input: is required', 'input');
  const { system, messages } = decodeInput(body.input, optionalString(body.instructions, 'instructions'));
  const alpha: JsonObject = {};
  const notes: string[] = [];
  decodeText(body, alpha);
  decodeReasoning(body, alpha, notes);
  decodeRest(body, alpha, notes);
  const request: ChatRequest = {
    model,
    system,
    messages,
    tools: decodeTools(body.tools),
    sampling: decodeSampling(body),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    includeUsage: false,
    extensions: {},
  };
  const toolChoice = decodeToolChoice(body.tool_choice);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  if (Object.keys(alpha).length > 0) request.extensions.alpha = alpha;
  if (notes.length > 0) request.notes = notes;
  return request;
}
