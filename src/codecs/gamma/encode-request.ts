/** The canonical request → a Family C upstream call (path carries model and stream switch, header the key). */
import { invalidRequest, isJsonObject } from '../../ir/index.ts';
import type { ChatRequest, JsonObject, Sampling, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import type { UpstreamRequest, UpstreamTarget } from '../codec.ts';
import { cacheMarkerWarning } from '../shared/cache-markers.ts';
import { droppedExtensionWarnings, imageDetailWarning } from '../shared/warnings.ts';
import { encodeContents } from './encode-contents.ts';
import { encodeOutputOptions } from './output-options.ts';
import { sanitiseParameters } from './schema.ts';
import {
  declarationExtraPrefix,
  type GammaFunctionCallingConfig,
  type GammaFunctionDeclaration,
} from './wire.ts';

const maxStopSequences = 5;

export function upstreamPath(model: string, stream: boolean): string {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return `/v1/models/${encodeURIComponent(model)}:${method}`;
}

/** The key goes in a header only: a `?key=` would leak into access logs. */
export function upstreamHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey !== undefined) headers['x-gamma-api-key'] = target.apiKey;
  return headers;
}

export function encodeRequest(request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  const warnings: string[] = [
    ...cacheMarkerWarning(request, 'gamma'),
    ...imageDetailWarning(request, 'gamma'),
  ];
  const contents = encodeContents(request.messages);
  if (contents.length === 0)
    throw invalidRequest('messages: gamma models need at least one user or model message', 'messages');
  const body: JsonObject = { contents };
  const system = request.system.filter((part) => part.text !== '').map((part) => ({ text: part.text }));
  if (system.length > 0) body.systemInstruction = { parts: system };
  const generationConfig = encodeSampling(request.sampling);
  encodeOutputOptions(request, generationConfig);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  if (request.tools.length > 0)
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool, position) =>
          encodeTool(tool, position, request.extensions.gamma),
        ),
      },
    ];
  // Like A and B, a tool choice means nothing without tools; C's own toolConfig extras still merge.
  if (request.toolChoice !== undefined && request.tools.length > 0)
    body.toolConfig = { functionCallingConfig: encodeToolChoice(request.toolChoice) };
  if (request.parallelToolCalls === false) {
    warnings.push('parallel_tool_calls has no equivalent for gamma models and was dropped');
  }
  if (request.tools.some((tool) => tool.strict === true)) {
    warnings.push('strict has no equivalent for gamma models and was dropped');
  }
  mergeExtension(body, request.extensions.gamma);
  warnings.push(...droppedExtensionWarnings(request, 'gamma'));
  return {
    path: upstreamPath(target.model, request.stream),
    headers: upstreamHeaders(target),
    body: JSON.stringify(body),
    warnings,
    call: { model: target.model, stream: request.stream, operation: 'chat' },
  };
}

function encodeSampling(sampling: Sampling): JsonObject {
  const stops = sampling.stopSequences;
  if (stops !== undefined && stops.length > maxStopSequences) {
    throw invalidRequest(
      `stop: gamma models accept at most ${maxStopSequences} stop sequences, got ${stops.length}`,
      'stop',
    );
  }
  const config: JsonObject = {};
  const fields: Array<[string, number | string[] | undefined]> = [
    ['temperature', sampling.temperature],
    ['topP', sampling.topP],
    ['topK', sampling.topK],
    ['maxOutputTokens', sampling.maxOutputTokens],
    ['stopSequences', stops],
    ['candidateCount', sampling.candidateCount],
    ['presencePenalty', sampling.presencePenalty],
    ['frequencyPenalty', sampling.frequencyPenalty],
    ['seed', sampling.seed],
  ];
  for (const [key, value] of fields) if (value !== undefined) config[key] = value;
  return config;
}

/** C's function-name rule: a letter or `_` first, then letters, digits, `_ . : -`, at most 128. */
const gammaToolName = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

function encodeTool(tool: ToolDefinition, position: number, extension: JsonObject | undefined): JsonObject {
  const path = `tools[${position}]`;
  if (!gammaToolName.test(tool.name)) {
    throw invalidRequest(
      `${path}.name: gamma models accept function names that start with a letter or "_" and hold up to 128 letters, digits, "_", ".", ":" or "-", not ${JSON.stringify(tool.name)}`,
      `${path}.name`,
    );
  }
  const declaration: GammaFunctionDeclaration = { name: tool.name };
  if (tool.description !== undefined) declaration.description = tool.description;
  const parameters = sanitiseParameters(tool.parameters, `${path}.parameters`);
  if (parameters !== undefined) declaration.parameters = parameters;
  return withDeclarationExtras(declaration, extension);
}

/** A C client's own declaration fields (`response`, `behavior`…) go back on its declaration. */
function withDeclarationExtras(
  declaration: GammaFunctionDeclaration,
  extension: JsonObject | undefined,
): JsonObject {
  const out: JsonObject = { ...declaration };
  for (const [key, byTool] of Object.entries(extension ?? {})) {
    if (!key.startsWith(declarationExtraPrefix) || !isJsonObject(byTool)) continue;
    const value = Object.hasOwn(byTool, declaration.name) ? byTool[declaration.name] : undefined;
    const field = key.slice(declarationExtraPrefix.length);
    if (value !== undefined && !Object.hasOwn(out, field))
      Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function encodeToolChoice(choice: ToolChoice): GammaFunctionCallingConfig {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}

/**
 * C-only fields a C client sent: generationConfig extras and toolConfig extras are merged in,
 * non-function tools appended; nothing the encoder set is overridden.
 */
function mergeExtension(body: JsonObject, extension: JsonObject | undefined): void {
  if (extension === undefined) return;
  for (const [key, value] of Object.entries(extension)) {
    if (key.startsWith(declarationExtraPrefix)) continue;
    if ((key === 'generationConfig' || key === 'toolConfig') && isJsonObject(value)) {
      body[key] = { ...value, ...(isJsonObject(body[key]) ? body[key] : {}) };
    } else if (key === 'tools' && Array.isArray(value)) {
      body.tools = [...(Array.isArray(body.tools) ? body.tools : []), ...value];
    } else if (body[key] === undefined) {
      body[key] = value;
    }
  }
}
