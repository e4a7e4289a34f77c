/** A Family C `generateContent` body (+ the route's model and stream switch) → the canonical request. */
import { invalidRequest, isJsonObject } from '../../ir/index.ts';
import type {
  ChatRequest,
  JsonObject,
  JsonValue,
  Sampling,
  TextPart,
  ToolChoice,
  ToolDefinition,
} from '../../ir/index.ts';
import type { SurfaceInput } from '../codec.ts';
import {
  optionalInteger,
  optionalNumber,
  optionalString,
  optionalStringList,
  requireArray,
  requireObject,
  requireString,
  unknownFields,
} from '../shared/validate.ts';
import { decodeContents } from './decode-contents.ts';
import { decodeOutputOptions } from './output-options.ts';
import { camelCaseRequest } from './proto-names.ts';
import { normaliseGammaSchema } from './schema.ts';
import { declarationExtraPrefix } from './wire.ts';

/** `model` is ignored in the body: the path names the model. Fields are read camelCase (proto-names.ts). */
const knownFields: ReadonlySet<string> = new Set([
  'contents',
  'systemInstruction',
  'generationConfig',
  'safetySettings',
  'tools',
  'toolConfig',
  'model',
]);

const knownConfigFields: ReadonlySet<string> = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
]);

const maxStopSequences = 5;

export function decodeRequest(input: SurfaceInput): ChatRequest {
  const body = camelCaseRequest(requireObject(input.body, 'body'));
  const model = input.route.model;
  if (model === undefined || model === '') throw invalidRequest('model: the path must name a model', 'model');
  const extension = unknownFields(body, knownFields);
  const request: ChatRequest = {
    model,
    system: decodeSystem(body.systemInstruction),
    messages: decodeContents(body.contents, input.lenient === true),
    tools: [],
    sampling: {},
    stream: input.route.stream ?? false,
    includeUsage: false,
    extensions: {},
  };
  request.sampling = decodeGenerationConfig(body.generationConfig, extension, request);
  if (body.safetySettings !== undefined && body.safetySettings !== null) {
    extension.safetySettings = requireArray(body.safetySettings, 'safetySettings');
  }
  request.tools = decodeTools(body.tools, extension);
  const config = decodeToolConfig(body.toolConfig, extension, input.lenient === true);
  if (config !== undefined) {
    request.toolChoice = config.choice;
    // `ANY` limited to several names: other families force "some tool", so only those are offered.
    if (config.allowed !== undefined) {
      const allowed = new Set(config.allowed);
      request.tools = request.tools.filter((tool) => allowed.has(tool.name));
    }
  }
  if (Object.keys(extension).length > 0) request.extensions = { gamma: extension };
  return request;
}

function decodeSystem(value: unknown): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  const content = requireObject(value, 'systemInstruction');
  const system: TextPart[] = [];
  requireArray(content.parts, 'systemInstruction.parts').forEach((item, index) => {
    const path = `systemInstruction.parts[${index}]`;
    const text = requireString(requireObject(item, path).text, `${path}.text`);
    if (text !== '') system.push({ type: 'text', text });
  });
  return system;
}

/**
 * The canonical knobs go to `sampling`, structured output and the thinking budget to the request;
 * the rest (includeThoughts, thinkingLevel, speechConfig…) stays for C upstreams.
 */
function decodeGenerationConfig(value: unknown, extension: JsonObject, request: ChatRequest): Sampling {
  if (value === undefined || value === null) return {};
  const config = requireObject(value, 'generationConfig');
  const at = (field: string): string => `generationConfig.${field}`;
  const fields: Record<keyof Sampling, number | string[] | undefined> = {
    temperature: optionalNumber(config.temperature, at('temperature'), 0, 2),
    topP: optionalNumber(config.topP, at('topP'), 0, 1),
    topK: optionalInteger(config.topK, at('topK'), 0, Number.MAX_SAFE_INTEGER),
    maxOutputTokens: optionalInteger(
      config.maxOutputTokens,
      at('maxOutputTokens'),
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    stopSequences: optionalStringList(config.stopSequences, at('stopSequences'), maxStopSequences),
    candidateCount: optionalInteger(config.candidateCount, at('candidateCount'), 1, 8),
    presencePenalty: optionalNumber(config.presencePenalty, at('presencePenalty'), -2, 2),
    frequencyPenalty: optionalNumber(config.frequencyPenalty, at('frequencyPenalty'), -2, 2),
    seed: optionalInteger(config.seed, at('seed'), Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  };
  const rest = unknownFields(config, knownConfigFields);
  decodeOutputOptions(rest, request);
  if (Object.keys(rest).length > 0) extension.generationConfig = rest;
  return withoutUndefined(fields);
}

/** `exactOptionalPropertyTypes`: absent knobs must be missing keys, not `undefined` values. */
function withoutUndefined(fields: Record<keyof Sampling, number | string[] | undefined>): Sampling {
  const out: Record<string, number | string[]> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/** `functionDeclarations` become IR tools; other tool kinds (googleSearch, codeExecution…) stay for C upstreams. */
function decodeTools(value: unknown, extension: JsonObject): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools: ToolDefinition[] = [];
  const others: JsonValue[] = [];
  requireArray(value, 'tools').forEach((item, index) => {
    const tool = requireObject(item, `tools[${index}]`);
    const { functionDeclarations, ...rest } = tool;
    if (functionDeclarations !== undefined) {
      requireArray(functionDeclarations, `tools[${index}].functionDeclarations`).forEach(
        (declaration, position) => {
          const path = `tools[${index}].functionDeclarations[${position}]`;
          tools.push(decodeDeclaration(requireObject(declaration, path), path, extension));
        },
      );
    }
    if (Object.keys(rest).length > 0) others.push(rest);
  });
  if (others.length > 0) extension.tools = others;
  return tools;
}

/** What an IR tool carries of a declaration; anything else (`response`, `behavior`…) is kept aside. */
const toolFields: ReadonlySet<string> = new Set([
  'name',
  'description',
  'parameters',
  'parametersJsonSchema',
]);

function decodeDeclaration(declaration: JsonObject, path: string, extension: JsonObject): ToolDefinition {
  const tool: ToolDefinition = {
    name: requireString(declaration.name, `${path}.name`),
    parameters: { type: 'object', properties: {} },
  };
  const description = optionalString(declaration.description, `${path}.description`);
  if (description !== undefined) tool.description = description;
  if (declaration.parameters !== undefined && declaration.parameters !== null) {
    tool.parameters = requireObject(
      normaliseGammaSchema(requireObject(declaration.parameters, `${path}.parameters`)),
      path,
    );
  } else if (declaration.parametersJsonSchema !== undefined && declaration.parametersJsonSchema !== null) {
    tool.parameters = requireObject(declaration.parametersJsonSchema, `${path}.parametersJsonSchema`);
  }
  keepDeclarationExtras(declaration, tool.name, extension);
  return tool;
}

/**
 * Declaration fields the IR has no slot for go to the extension as `functionDeclarations.<field>`
 * (tool name → value): a C upstream gets them back on the same declaration, any other family's
 * answer names them in a `warning` (codecs/shared/warnings.ts), so none is dropped silently.
 */
function keepDeclarationExtras(declaration: JsonObject, name: string, extension: JsonObject): void {
  for (const [field, value] of Object.entries(declaration)) {
    if (toolFields.has(field) || value === null) continue;
    const key = `${declarationExtraPrefix}${field}`;
    const byTool = isJsonObject(extension[key]) ? extension[key] : {};
    Object.defineProperty(byTool, name, { value, enumerable: true, writable: true, configurable: true });
    extension[key] = byTool;
  }
}

interface ToolConfig {
  choice: ToolChoice;
  /** `ANY` with several `allowedFunctionNames`: the tools the model may choose among. */
  allowed?: string[];
}

function decodeToolConfig(value: unknown, extension: JsonObject, lenient: boolean): ToolConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const { functionCallingConfig, ...rest } = requireObject(value, 'toolConfig');
  if (Object.keys(rest).length > 0) extension.toolConfig = rest;
  if (functionCallingConfig === undefined || functionCallingConfig === null) return undefined;
  const config = requireObject(functionCallingConfig, 'toolConfig.functionCallingConfig');
  const mode = optionalString(config.mode, 'toolConfig.functionCallingConfig.mode') ?? 'MODE_UNSPECIFIED';
  const names = config.allowedFunctionNames;
  const allowed =
    names === undefined || names === null
      ? []
      : requireArray(names, 'toolConfig.functionCallingConfig.allowedFunctionNames').map((name, index) =>
          requireString(name, `toolConfig.functionCallingConfig.allowedFunctionNames[${index}]`),
        );
  switch (mode) {
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
    case 'VALIDATED':
      return { choice: { type: 'auto' } };
    case 'NONE':
      return { choice: { type: 'none' } };
    case 'ANY': {
      const only = allowed.length === 1 ? allowed[0] : undefined;
      if (only !== undefined) return { choice: { type: 'tool', name: only } };
      return allowed.length > 1
        ? { choice: { type: 'required' }, allowed }
        : { choice: { type: 'required' } };
    }
    default:
      // A mode newer than this codec: the same-family upstream may know it (lenient); anyone else cannot.
      if (lenient) return undefined;
      throw invalidRequest(
        `toolConfig.functionCallingConfig.mode: unknown mode "${mode}"`,
        'toolConfig.functionCallingConfig.mode',
      );
  }
}
