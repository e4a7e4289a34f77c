/**
 * A Responses API request body → the canonical request. Structured output (`text.format`) and
 * `reasoning.effort` become the canonical `responseFormat` and `reasoning`, which every family
 * encodes in its own form. What only a chat-completions upstream can use (`user`, `verbosity`…)
 * goes to `extensions.alpha` under its chat name (other families are warned that it was
 * dropped). Fields the gateway keeps itself (`store`, `metadata`, `previous_response_id`) are
 * read by the HTTP layer; fields no upstream receives become `notes` (warning headers).
 */
import {
  invalidRequest,
  type ChatRequest,
  type JsonObject,
  type Reasoning,
  type ResponseFormat,
  type Sampling,
} from '../../ir/index.ts';
import type { SurfaceInput } from '../../codecs/codec.ts';
import { readEffort } from '../../codecs/shared/reasoning-budget.ts';
import {
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalString,
  requireObject,
  requireString,
} from '../../codecs/shared/validate.ts';
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

/** `text.format` → the canonical `responseFormat`; `text.verbosity` → chat's `verbosity` (A only). */
function decodeText(body: JsonObject, alpha: JsonObject): ResponseFormat | undefined {
  if (body.text === undefined || body.text === null) return undefined;
  const text = requireObject(body.text, 'text');
  const verbosity = optionalString(text.verbosity, 'text.verbosity');
  if (verbosity !== undefined) alpha.verbosity = verbosity;
  if (text.format === undefined || text.format === null) return undefined;
  const format = requireObject(text.format, 'text.format');
  switch (typeof format.type === 'string' ? format.type : '') {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const decoded: ResponseFormat = {
        type: 'json-schema',
        name: requireString(format.name, 'text.format.name'),
        schema: requireObject(format.schema, 'text.format.schema'),
      };
      const description = optionalString(format.description, 'text.format.description');
      if (description !== undefined) decoded.description = description;
      const strict = optionalBoolean(format.strict, 'text.format.strict');
      if (strict !== undefined) decoded.strict = strict;
      return decoded;
    }
    default:
      throw invalidRequest(
        `text.format.type: expected "text", "json_object" or "json_schema", not ${JSON.stringify(format.type ?? null)}`,
        'text.format.type',
      );
  }
}

/**
 * `reasoning.effort` → the canonical `reasoning` (each family's own knob). Summaries of the
 * model's thinking have no form in the canonical answer, so they are refused with a warning.
 */
function decodeReasoning(body: JsonObject, notes: string[]): Reasoning | undefined {
  if (body.reasoning === undefined || body.reasoning === null) return undefined;
  const reasoning = requireObject(body.reasoning, 'reasoning');
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (summary !== undefined && summary !== null)
    notes.push('reasoning.summary is not available through modelgate and was ignored');
  const effort = readEffort(reasoning.effort, 'reasoning.effort');
  return effort === undefined ? undefined : { effort };
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
  // `drop`: built-in tools, a choice of one and their call items are left out, and named in a note;
  // `drop-unless-forced` the same, except that a choice of one stays a 400.
  const policy = input.builtInTools ?? 'reject';
  const dropped = policy === 'reject' ? undefined : new Set<string>();
  const {
    system,
    messages,
    dropped: droppedItems,
  } = decodeInput(body.input, optionalString(body.instructions, 'instructions'), dropped !== undefined);
  const alpha: JsonObject = {};
  const notes: string[] = [];
  const responseFormat = decodeText(body, alpha);
  const reasoning = decodeReasoning(body, notes);
  decodeRest(body, alpha, notes);
  const request: ChatRequest = {
    model,
    system,
    messages,
    tools: decodeTools(body.tools, dropped),
    sampling: decodeSampling(body),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    includeUsage: false,
    extensions: {},
  };
  const toolChoice = decodeToolChoice(body.tool_choice, policy === 'drop' ? dropped : undefined);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  if (responseFormat !== undefined) request.responseFormat = responseFormat;
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (Object.keys(alpha).length > 0) request.extensions.alpha = alpha;
  if (dropped !== undefined && dropped.size > 0)
    notes.push(`built-in tools dropped (responses.builtInTools: ${policy}): ${[...dropped].join(', ')}`);
  if (droppedItems.size > 0)
    notes.push(`built-in tool call items dropped from the input: ${[...droppedItems].join(', ')}`);
  if (notes.length > 0) request.notes = notes;
  return request;
}
