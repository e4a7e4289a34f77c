/** The canonical request → an upstream Converse call (`/model/{id}/converse` or `/converse-stream`). */
import type { UpstreamRequest, UpstreamTarget } from '../codec.ts';
import type { ChatRequest, JsonObject, TextPart } from '../../ir/index.ts';
import { budgetForEffort, referenceOutputCap } from '../shared/reasoning-budget.ts';
import { droppedExtensionWarnings, imageDetailWarning } from '../shared/warnings.ts';
import { cachePoint, encodeMessages } from './encode-messages.ts';
import { conversePath } from './wire.ts';
import type { ConverseRequestBody, ConverseTool, ConverseToolChoice } from './wire.ts';

/** Bedrock API keys travel as a bearer token; SigV4 signing is the provider's (`providers/bedrock/`). */
export function upstreamHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

export function encodeRequest(request: ChatRequest, target: UpstreamTarget): UpstreamRequest {
  const warnings: string[] = [];
  const body: ConverseRequestBody = { messages: encodeMessages(request.messages) };
  const system = encodeSystem(request.system);
  if (system.length > 0) body.system = system;
  const inferenceConfig = encodeInference(request, warnings);
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  if (request.tools.length > 0) body.toolConfig = encodeToolConfig(request, warnings);
  const additional = additionalFields(request);
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  if (request.responseFormat !== undefined)
    warnings.push('response_format has no equivalent for converse models and was dropped');
  warnings.push(...droppedExtensionWarnings(request, 'converse'), ...imageDetailWarning(request, 'converse'));
  const own = request.extensions.converse ?? {};
  const merged: Record<string, unknown> = { ...own, ...body };
  return {
    path: conversePath(target.model, request.stream),
    headers: upstreamHeaders(target.apiKey),
    body: JSON.stringify(merged),
    warnings,
    call: { model: target.model, stream: request.stream, operation: 'chat' },
  };
}

function encodeSystem(parts: readonly TextPart[]): ConverseRequestBody['system'] & object {
  const system: NonNullable<ConverseRequestBody['system']> = [];
  for (const part of parts) {
    if (part.text.trim() === '') continue;
    system.push({ text: part.text });
    if (part.cacheControl !== undefined) system.push(cachePoint);
  }
  return system;
}

function encodeInference(
  request: ChatRequest,
  warnings: string[],
): NonNullable<ConverseRequestBody['inferenceConfig']> {
  const { sampling } = request;
  const config: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  if (sampling.maxOutputTokens !== undefined) config.maxTokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) config.temperature = sampling.temperature;
  if (sampling.topP !== undefined) config.topP = sampling.topP;
  if (sampling.stopSequences !== undefined && sampling.stopSequences.length > 0)
    config.stopSequences = sampling.stopSequences;
  for (const [field, value] of [
    ['presence_penalty', sampling.presencePenalty],
    ['frequency_penalty', sampling.frequencyPenalty],
    ['seed', sampling.seed],
  ] as const) {
    if (value !== undefined) warnings.push(`${field} has no equivalent for converse models and was dropped`);
  }
  return config;
}

function encodeToolConfig(
  request: ChatRequest,
  warnings: string[],
): NonNullable<ConverseRequestBody['toolConfig']> {
  const tools: Array<ConverseTool | typeof cachePoint> = [];
  for (const tool of request.tools) {
    const schema: JsonObject =
      tool.parameters.type === undefined ? { type: 'object', ...tool.parameters } : tool.parameters;
    tools.push({
      toolSpec:
        tool.description === undefined
          ? { name: tool.name, inputSchema: { json: schema } }
          : { name: tool.name, description: tool.description, inputSchema: { json: schema } },
    });
    if (tool.cacheControl !== undefined) tools.push(cachePoint);
  }
  const toolChoice = encodeToolChoice(request, warnings);
  return toolChoice === undefined ? { tools } : { tools, toolChoice };
}

function encodeToolChoice(request: ChatRequest, warnings: string[]): ConverseToolChoice | undefined {
  if (request.parallelToolCalls === false)
    warnings.push('parallel_tool_calls has no equivalent for converse models and was dropped');
  const choice = request.toolChoice;
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'none':
      // Converse has no "none": the tools stay declared (history may use them), the model chooses.
      warnings.push(
        'tool_choice none has no equivalent for converse models; the model may still call a tool',
      );
      return undefined;
    case 'auto':
      return { auto: {} };
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
  }
}

/**
 * Fields Converse has no slot for, passed to the model in its own words: `top_k` and Anthropic's
 * `thinking` (the models that read them on Bedrock).
 */
function additionalFields(request: ChatRequest): JsonObject {
  const fields: JsonObject = {};
  if (request.sampling.topK !== undefined) fields.top_k = request.sampling.topK;
  const { effort, budgetTokens } = request.reasoning ?? {};
  const budget =
    budgetTokens ??
    (effort === undefined
      ? undefined
      : budgetForEffort(effort, request.sampling.maxOutputTokens ?? referenceOutputCap));
  if (budget !== undefined && budget > 0) fields.thinking = { type: 'enabled', budget_tokens: budget };
  return fields;
}
