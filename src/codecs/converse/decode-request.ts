/**
 * A Converse request body → the canonical request. Converse has no surface of its own; this reads
 * what the encoder writes, for the built-in simulator (which answers every family with its own
 * codec) and for the codec's round-trip tests. The model and streaming come from the path.
 */
import type { SurfaceInput } from '../codec.ts';
import type {
  AssistantPart,
  ChatRequest,
  ImagePart,
  JsonObject,
  Message,
  Sampling,
  TextPart,
  ToolChoice,
  ToolResultPart,
  UserPart,
} from '../../ir/index.ts';
import { invalidRequest, isJsonObject } from '../../ir/index.ts';
import {
  optionalInteger,
  optionalNumber,
  optionalStringList,
  requireArray,
  requireObject,
  requireString,
} from '../shared/validate.ts';

const marker = { type: 'ephemeral' } as const;

function image(block: JsonObject, path: string): ImagePart {
  const wire = requireObject(block.image, `${path}.image`);
  const source = requireObject(wire.source, `${path}.image.source`);
  const format = requireString(wire.format, `${path}.image.format`);
  return {
    type: 'image',
    source: {
      kind: 'base64',
      mediaType: `image/${format}`,
      data: requireString(source.bytes, `${path}.image.source.bytes`),
    },
  };
}

type Part = UserPart | AssistantPart | ToolResultPart;

function part(block: JsonObject, path: string): Part {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.image !== undefined) return image(block, path);
  if (isJsonObject(block.toolUse)) {
    const use = block.toolUse;
    return {
      type: 'tool-call',
      id: requireString(use.toolUseId, `${path}.toolUse.toolUseId`),
      name: requireString(use.name, `${path}.toolUse.name`),
      arguments: JSON.stringify(requireObject(use.input, `${path}.toolUse.input`)),
    };
  }
  if (isJsonObject(block.toolResult)) {
    const result = block.toolResult;
    const content = requireArray(result.content, `${path}.toolResult.content`).map(
      (item, index): TextPart | ImagePart => {
        const at = `${path}.toolResult.content[${index}]`;
        const object = requireObject(item, at);
        if (typeof object.text === 'string') return { type: 'text', text: object.text };
        if (isJsonObject(object.json)) return { type: 'text', text: JSON.stringify(object.json) };
        return image(object, at);
      },
    );
    return {
      type: 'tool-result',
      callId: requireString(result.toolUseId, `${path}.toolResult.toolUseId`),
      name: '',
      content,
      isError: result.status === 'error',
    };
  }
  throw invalidRequest(`${path}: unsupported content block`, path);
}

/** Blocks with `cachePoint`s folded into the preceding part's marker. */
function parts(blocks: unknown, path: string): Part[] {
  const read: Part[] = [];
  requireArray(blocks, path).forEach((value, index) => {
    const block = requireObject(value, `${path}[${index}]`);
    if (block.cachePoint !== undefined) {
      const last = read.at(-1);
      if (last !== undefined) last.cacheControl = marker;
      return;
    }
    read.push(part(block, `${path}[${index}]`));
  });
  return read;
}

function messages(value: unknown): Message[] {
  const names = new Map<string, string>();
  const decoded: Message[] = [];
  requireArray(value, 'messages').forEach((item, index) => {
    const wire = requireObject(item, `messages[${index}]`);
    const content = parts(wire.content, `messages[${index}].content`);
    if (wire.role === 'assistant') {
      const assistant = content.filter(
        (p): p is AssistantPart => p.type === 'text' || p.type === 'tool-call',
      );
      for (const p of assistant) if (p.type === 'tool-call') names.set(p.id, p.name);
      decoded.push({ role: 'assistant', content: assistant });
      return;
    }
    if (wire.role !== 'user')
      throw invalidRequest(
        `messages[${index}].role: expected "user" or "assistant"`,
        `messages[${index}].role`,
      );
    const results = content.filter((p): p is ToolResultPart => p.type === 'tool-result');
    for (const result of results) result.name = names.get(result.callId) ?? '';
    if (results.length > 0) decoded.push({ role: 'tool', content: results });
    const user = content.filter((p): p is UserPart => p.type === 'text' || p.type === 'image');
    if (user.length > 0) decoded.push({ role: 'user', content: user });
  });
  return decoded;
}

function toolChoice(value: unknown): ToolChoice | undefined {
  if (!isJsonObject(value)) return undefined;
  if (value.auto !== undefined) return { type: 'auto' };
  if (value.any !== undefined) return { type: 'required' };
  if (isJsonObject(value.tool))
    return { type: 'tool', name: requireString(value.tool.name, 'toolConfig.toolChoice.tool.name') };
  return undefined;
}

function sampling(inference: JsonObject, additional: JsonObject): Sampling {
  const read: Sampling = {};
  const maxTokens = optionalInteger(
    inference.maxTokens,
    'inferenceConfig.maxTokens',
    1,
    Number.MAX_SAFE_INTEGER,
  );
  if (maxTokens !== undefined) read.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(inference.temperature, 'inferenceConfig.temperature', 0, 2);
  if (temperature !== undefined) read.temperature = temperature;
  const topP = optionalNumber(inference.topP, 'inferenceConfig.topP', 0, 1);
  if (topP !== undefined) read.topP = topP;
  const topK = optionalInteger(
    additional.top_k,
    'additionalModelRequestFields.top_k',
    0,
    Number.MAX_SAFE_INTEGER,
  );
  if (topK !== undefined) read.topK = topK;
  const stops = optionalStringList(inference.stopSequences, 'inferenceConfig.stopSequences', 2500);
  if (stops !== undefined) read.stopSequences = stops;
  return read;
}

export function decodeRequest(input: SurfaceInput): ChatRequest {
  const body = requireObject(input.body, 'body');
  const system =
    body.system === undefined
      ? []
      : parts(body.system, 'system').filter((p): p is TextPart => p.type === 'text');
  const inference = isJsonObject(body.inferenceConfig) ? body.inferenceConfig : {};
  const toolConfig = isJsonObject(body.toolConfig) ? body.toolConfig : {};
  const tools = (Array.isArray(toolConfig.tools) ? toolConfig.tools : []).flatMap((tool, index) => {
    const spec = isJsonObject(tool) && isJsonObject(tool.toolSpec) ? tool.toolSpec : undefined;
    if (spec === undefined) return [];
    const schema =
      isJsonObject(spec.inputSchema) && isJsonObject(spec.inputSchema.json) ? spec.inputSchema.json : {};
    const name = requireString(spec.name, `toolConfig.tools[${index}].toolSpec.name`);
    return [
      typeof spec.description === 'string'
        ? { name, description: spec.description, parameters: schema }
        : { name, parameters: schema },
    ];
  });
  const additional = isJsonObject(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
  const thinking = isJsonObject(additional.thinking) ? additional.thinking : {};
  const request: ChatRequest = {
    model: input.route.model ?? '',
    system,
    messages: messages(body.messages),
    tools,
    sampling: sampling(inference, additional),
    stream: input.route.stream === true,
    includeUsage: true,
    extensions: {},
  };
  const choice = toolChoice(toolConfig.toolChoice);
  if (choice !== undefined) request.toolChoice = choice;
  if (typeof thinking.budget_tokens === 'number')
    request.reasoning = { budgetTokens: thinking.budget_tokens };
  return request;
}
