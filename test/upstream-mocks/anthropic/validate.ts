/**
 * What the real Messages API refuses, with its real texts (pydantic-style "loc: message"). Shared by
 * the first-party mock and Vertex's rawPredict routes (which differ only in model/anthropic_version).
 */

/** The Messages API's request fields (docs.anthropic.com "Create a Message" + the generally available extras). */
export const messagesFields = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'output_config',
  'inference_geo',
]);

/** count_tokens takes the prompt half of a Messages request only. */
export const countTokensFields = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'output_config',
]);

const imageMediaTypes: Record<string, (bytes: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8,
  'image/gif': (b) => b.subarray(0, 3).toString('latin1') === 'GIF',
  'image/webp': (b) => b.subarray(8, 12).toString('latin1') === 'WEBP',
};

export interface MessageContentBlock {
  type: string;
  text?: string;
  source?: { type?: string; media_type?: string; data?: string; url?: string };
  cache_control?: unknown;
  [key: string]: unknown;
}

export interface MessagesRequest {
  model?: string;
  messages: { role: string; content: string | MessageContentBlock[] }[];
  max_tokens?: number;
  system?: string | MessageContentBlock[];
  stream?: boolean;
  tools?: { name: string; input_schema?: unknown; cache_control?: unknown; type?: string }[];
  tool_choice?: { type: string; name?: string };
  thinking?: { type: string; budget_tokens?: number };
  stop_sequences?: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkImage(block: MessageContentBlock, where: string): string | undefined {
  const source = block.source;
  if (!isRecord(source)) return `${where}.source: Field required`;
  if (source.type === 'url')
    return typeof source.url === 'string' ? undefined : `${where}.source.url: Field required`;
  if (source.type !== 'base64')
    return `${where}.source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
  const matches = imageMediaTypes[String(source.media_type)];
  if (!matches)
    return `${where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  const data = source.data ?? '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0)
    return `${where}.source.base64.data: Invalid base64 data`;
  if (!matches(Buffer.from(data, 'base64'))) {
    return `${where}.source.base64: The image was specified using the ${String(source.media_type)} media type, but does not appear to be a valid ${String(source.media_type).slice(6)} image`;
  }
  return undefined;
}

function checkMessages(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return 'messages: Input should be a valid list';
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return `messages.${index}: Input should be a valid dictionary`;
    if (message.role !== 'user' && message.role !== 'assistant') {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    const content = message.content;
    if (typeof content === 'string') continue;
    if (!Array.isArray(content)) return `messages.${index}.content: Field required`;
    for (const [blockIndex, block] of (content as unknown[]).entries()) {
      const where = `messages.${index}.content.${blockIndex}`;
      if (!isRecord(block) || typeof block.type !== 'string') return `${where}.type: Field required`;
      if (block.type === 'image') {
        const problem = checkImage(block as MessageContentBlock, `${where}.image`);
        if (problem) return problem;
      }
      if (block.type === 'text' && typeof block.text !== 'string')
        return `${where}.text.text: Field required`;
    }
  }
  return undefined;
}

export interface ValidationOptions {
  fields: ReadonlySet<string>;
  /** Vertex carries the model in the URL and the version in the body. */
  vertex: boolean;
  /** count_tokens has no max_tokens. */
  needsMaxTokens: boolean;
}

/** The first problem the real API reports, or undefined for a valid request. */
export function messagesRequestProblem(body: unknown, options: ValidationOptions): string | undefined {
  if (!isRecord(body)) return 'Input should be a valid dictionary or object to extract fields from';
  const fields = new Set(options.fields);
  if (options.vertex) {
    fields.delete('model');
    fields.add('anthropic_version');
    if (body.anthropic_version === undefined) return 'anthropic_version: Field required';
    if (body.anthropic_version !== 'vertex-2023-10-16')
      return `anthropic_version: Input should be 'vertex-2023-10-16'`;
  } else if (typeof body.model !== 'string') {
    return 'model: Field required';
  }
  for (const key of Object.keys(body)) if (!fields.has(key)) return `${key}: Extra inputs are not permitted`;
  if (body.messages === undefined) return 'messages: Field required';
  if (options.needsMaxTokens) {
    if (body.max_tokens === undefined) return 'max_tokens: Field required';
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
      return 'max_tokens: Input should be greater than or equal to 1';
    }
  }
  const temperature = body.temperature;
  if (typeof temperature === 'number' && (temperature < 0 || temperature > 1)) {
    return 'temperature: Input should be less than or equal to 1';
  }
  const thinking = body.thinking;
  if (isRecord(thinking) && thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024) {
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    }
    if (options.needsMaxTokens && typeof body.max_tokens === 'number' && body.max_tokens <= budget) {
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined) {
    return 'tool_choice: tool_choice may only be specified while providing tools.';
  }
  return checkMessages(body.messages);
}

export function isClaudeModel(model: string): boolean {
  return /^claude-[a-z0-9.@-]+$/.test(model);
}
