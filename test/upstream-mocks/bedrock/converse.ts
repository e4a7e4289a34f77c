/**
 * The Converse API as the mock answers it: what the real API refuses (its ValidationException
 * texts) and deterministic answers (echo text, a tool use when asked, cache reads and writes at
 * `cachePoint`s), whole or as ConverseStream events.
 */
import {
  countTokens,
  PrefixCache,
  argumentsFromSchema,
  echoReply,
  randomId,
  requestedToolName,
  splitInPieces,
} from '../kit/text.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const converseFields = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
]);

const blockKinds = new Set([
  'text',
  'image',
  'document',
  'video',
  'toolUse',
  'toolResult',
  'guardContent',
  'cachePoint',
  'reasoningContent',
]);

/** The first problem the real API reports, or undefined. */
export function converseProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'Malformed input request, please reformat your input and try again.';
  for (const key of Object.keys(body)) if (!converseFields.has(key)) return `Unknown parameter: ${key}`;
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return 'The conversation must contain at least one message.';
  let previous: unknown;
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content) || message.content.length === 0)
      return `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`;
    if (index === 0 && message.role !== 'user')
      return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (message.role === previous)
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    previous = message.role;
    for (const block of message.content) {
      const kinds = isRecord(block) ? Object.keys(block) : [];
      if (kinds.length !== 1 || !blockKinds.has(kinds[0] ?? ''))
        return `Invalid content block at messages.${index}: exactly one of ${[...blockKinds].join(', ')} is required.`;
    }
  }
  const config = body.inferenceConfig;
  if (
    isRecord(config) &&
    config.maxTokens !== undefined &&
    (!Number.isInteger(config.maxTokens) || (config.maxTokens as number) < 1)
  )
    return 'The maximum tokens you requested must be at least 1.';
  return undefined;
}

function lastUserText(messages: Json[]): { text: string; sawImage: boolean } {
  let text = '';
  let sawImage = false;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    for (const block of message.content as Json[]) {
      if (typeof block.text === 'string') text = block.text;
      if (block.image !== undefined) sawImage = true;
    }
  }
  return { text, sawImage };
}

/** Input tokens split at the last `cachePoint` (system, then messages) into read, written and uncached. */
function cacheUsage(
  model: string,
  body: Json,
  cache: PrefixCache,
): { inputTokens: number; cacheReadInputTokens: number; cacheWriteInputTokens: number } {
  const segments: Array<{ value: unknown; marked: boolean }> = [];
  const system = Array.isArray(body.system) ? (body.system as Json[]) : [];
  for (const block of [
    ...system,
    ...(body.messages as Json[]).flatMap((message) => message.content as Json[]),
  ]) {
    if (block.cachePoint !== undefined) {
      const last = segments.at(-1);
      if (last !== undefined) last.marked = true;
    } else segments.push({ value: block, marked: false });
  }
  const tokens = (segment: { value: unknown }): number => countTokens(JSON.stringify(segment.value));
  const total = segments.reduce((sum, segment) => sum + tokens(segment), 0);
  const lastMarked = segments.map((segment) => segment.marked).lastIndexOf(true);
  if (lastMarked < 0) return { inputTokens: total, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };
  const prefix = segments.slice(0, lastMarked + 1);
  const prefixTokens = prefix.reduce((sum, segment) => sum + tokens(segment), 0);
  const outcome = cache.touch({ model, prefix: prefix.map((segment) => segment.value) });
  return {
    inputTokens: total - prefixTokens,
    cacheReadInputTokens: outcome === 'read' ? prefixTokens : 0,
    cacheWriteInputTokens: outcome === 'write' ? prefixTokens : 0,
  };
}

function chosenTool(body: Json, userText: string): { name: string; schema: unknown } | undefined {
  const config = isRecord(body.toolConfig) ? body.toolConfig : {};
  const specs = (Array.isArray(config.tools) ? (config.tools as Json[]) : []).flatMap((tool) =>
    isRecord(tool.toolSpec) ? [tool.toolSpec] : [],
  );
  const choice = isRecord(config.toolChoice) ? config.toolChoice : {};
  const forced = isRecord(choice.tool)
    ? String(choice.tool.name)
    : choice.any !== undefined
      ? String(specs[0]?.name)
      : undefined;
  const name =
    forced ??
    requestedToolName(
      userText,
      specs.map((spec) => String(spec.name)),
    );
  const spec = specs.find((candidate) => candidate.name === name);
  const schema = isRecord(spec?.inputSchema) ? spec.inputSchema.json : undefined;
  return spec && { name: String(spec.name), schema };
}

export interface ConverseAnswer {
  content: Json[];
  stopReason: string;
  usage: Json;
}

export function buildConverseAnswer(model: string, body: Json, cache: PrefixCache): ConverseAnswer {
  const { text, sawImage } = lastUserText(body.messages as Json[]);
  const tool = chosenTool(body, text);
  const content: Json[] = tool
    ? [
        {
          toolUse: {
            toolUseId: randomId('tooluse_', 22),
            name: tool.name,
            input: argumentsFromSchema(tool.schema),
          },
        },
      ]
    : [{ text: echoReply('bedrock', text, sawImage) }];
  const outputTokens = content.reduce((sum, block) => sum + countTokens(JSON.stringify(block)), 0);
  const cached = cacheUsage(model, body, cache);
  const usage: Json = {
    inputTokens: cached.inputTokens,
    outputTokens,
    totalTokens:
      cached.inputTokens + cached.cacheReadInputTokens + cached.cacheWriteInputTokens + outputTokens,
  };
  if (cached.cacheReadInputTokens > 0) usage.cacheReadInputTokens = cached.cacheReadInputTokens;
  if (cached.cacheWriteInputTokens > 0) usage.cacheWriteInputTokens = cached.cacheWriteInputTokens;
  return { content, stopReason: tool ? 'tool_use' : 'end_turn', usage };
}

/** The answer as ConverseStream events: `[eventType, payload]`, text and tool input in several deltas. */
export function converseStreamEvents(answer: ConverseAnswer): Array<[string, Json]> {
  const events: Array<[string, Json]> = [['messageStart', { role: 'assistant' }]];
  for (const [contentBlockIndex, block] of answer.content.entries()) {
    if (typeof block.text === 'string') {
      for (const piece of splitInPieces(block.text, 3))
        events.push(['contentBlockDelta', { contentBlockIndex, delta: { text: piece } }]);
    } else if (isRecord(block.toolUse)) {
      const { toolUseId, name, input } = block.toolUse;
      events.push(['contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId, name } } }]);
      for (const piece of splitInPieces(JSON.stringify(input), 3))
        events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: piece } } }]);
    }
    events.push(['contentBlockStop', { contentBlockIndex }]);
  }
  events.push(['messageStop', { stopReason: answer.stopReason }]);
  events.push(['metadata', { usage: answer.usage, metrics: { latencyMs: 412 } }]);
  return events;
}
