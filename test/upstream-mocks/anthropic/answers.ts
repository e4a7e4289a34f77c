/**
 * Anthropic answers, exported for every mock that speaks Messages (first-party, Vertex rawPredict,
 * later Bedrock). Field sets and order follow recorded real traffic: the stream recorded in
 * anthropics/anthropic-sdk-typescript tests/lib/fixtures/tool_use_response.txt (message_start whose
 * usage is input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens: 1,
 * service_tier; content_block_start; ping after the first one; text_delta pieces; a tool_use block
 * started with input {} and filled by input_json_delta pieces, the first ""; content_block_stop;
 * message_delta with stop_reason and usage; message_stop). message_delta's usage also carries the
 * input and cache counts, as the API has sent since 2025 (docs.anthropic.com streaming guide).
 */
import {
  argumentsFromSchema,
  countTokens,
  echoReply,
  PrefixCache,
  randomId,
  requestedToolName,
  splitInPieces,
} from '../kit/text.ts';
import type { MessageContentBlock, MessagesRequest } from './validate.ts';

export type AnthropicContent =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContent[];
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens';
  stop_sequence: null;
  usage: AnthropicUsage;
}

export function anthropicErrorBody(type: string, message: string, requestId: string): unknown {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

function blocksOf(content: string | MessageContentBlock[] | undefined): MessageContentBlock[] {
  if (content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function lastUserText(request: MessagesRequest): { text: string; sawImage: boolean } {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  const blocks = blocksOf(last?.content);
  const text = blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join(' ');
  return { text, sawImage: blocks.some((block) => block.type === 'image') };
}

/**
 * The prompt as ordered segments (tools, system, messages), each with its tokens and whether a
 * cache_control marker ends a cacheable prefix there — the order Anthropic's cache hashes them in.
 */
function promptSegments(request: MessagesRequest): { tokens: number; marked: boolean; value: unknown }[] {
  const segments: { tokens: number; marked: boolean; value: unknown }[] = [];
  for (const tool of request.tools ?? []) {
    segments.push({
      tokens: countTokens(JSON.stringify(tool)),
      marked: tool.cache_control !== undefined,
      value: tool,
    });
  }
  for (const block of blocksOf(request.system)) {
    segments.push({
      tokens: countTokens(block.text ?? ''),
      marked: block.cache_control !== undefined,
      value: block,
    });
  }
  for (const message of request.messages) {
    for (const block of blocksOf(message.content)) {
      const tokens = block.type === 'image' ? 1600 : countTokens(JSON.stringify(block.text ?? block));
      segments.push({ tokens, marked: block.cache_control !== undefined, value: [message.role, block] });
    }
  }
  return segments;
}

export function countInputTokens(request: MessagesRequest): number {
  return promptSegments(request).reduce((sum, segment) => sum + segment.tokens, 0);
}

/** Splits input tokens into uncached, written and read by the last cache_control marker. */
export function cacheUsage(
  request: MessagesRequest,
  cache: PrefixCache,
): Pick<AnthropicUsage, 'input_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'> {
  const segments = promptSegments(request);
  const total = segments.reduce((sum, segment) => sum + segment.tokens, 0);
  const lastMarked = segments.map((segment) => segment.marked).lastIndexOf(true);
  if (lastMarked < 0)
    return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const prefix = segments.slice(0, lastMarked + 1);
  const prefixTokens = prefix.reduce((sum, segment) => sum + segment.tokens, 0);
  const key = { model: request.model, prefix: prefix.map((segment) => segment.value) };
  const outcome = cache.touch(key);
  return {
    input_tokens: total - prefixTokens,
    cache_creation_input_tokens: outcome === 'write' ? prefixTokens : 0,
    cache_read_input_tokens: outcome === 'read' ? prefixTokens : 0,
  };
}

function chosenTool(
  request: MessagesRequest,
  userText: string,
): { name: string; schema: unknown } | undefined {
  const tools = (request.tools ?? []).filter((tool) => tool.type === undefined || tool.type === 'custom');
  const choice = request.tool_choice;
  if (choice?.type === 'none') return undefined;
  const name =
    choice?.type === 'tool'
      ? choice.name
      : (requestedToolName(
          userText,
          tools.map((tool) => tool.name),
        ) ?? (choice?.type === 'any' ? tools[0]?.name : undefined));
  const tool = tools.find((candidate) => candidate.name === name);
  return tool && { name: tool.name, schema: tool.input_schema };
}

/** The whole (non-streamed) Message for a valid request; `model` is what the caller asked for. */
export function buildAnthropicMessage(
  request: MessagesRequest,
  model: string,
  cache: PrefixCache,
): AnthropicMessage {
  const { text, sawImage } = lastUserText(request);
  const tool = chosenTool(request, text);
  const content: AnthropicContent[] = tool
    ? [
        {
          type: 'tool_use',
          id: randomId('toolu_01'),
          name: tool.name,
          input: argumentsFromSchema(tool.schema),
        },
      ]
    : [{ type: 'text', text: echoReply('anthropic', text, sawImage) }];
  // Extended thinking puts a signed thinking block before the answer (docs: extended-thinking).
  if (request.thinking?.type === 'enabled') {
    const signature = Buffer.from(randomId('', 48)).toString('base64');
    content.unshift({ type: 'thinking', thinking: `mock thinking about: ${text.slice(0, 40)}`, signature });
  }
  const outputTokens = content.reduce((sum, block) => sum + countTokens(JSON.stringify(block)), 0);
  return {
    id: randomId('msg_01'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      ...cacheUsage(request, cache),
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: outputTokens,
      service_tier: 'standard',
    },
  };
}

export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A block as content_block_start announces it: its fields with nothing generated yet. */
function emptyBlock(block: AnthropicContent): AnthropicContent {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  return { ...block, input: {} };
}

function blockDeltas(block: AnthropicContent): Record<string, string>[] {
  if (block.type === 'text')
    return splitInPieces(block.text, 3).map((text) => ({ type: 'text_delta', text }));
  if (block.type === 'thinking') {
    const thinking = splitInPieces(block.thinking, 2).map((piece) => ({
      type: 'thinking_delta',
      thinking: piece,
    }));
    return [...thinking, { type: 'signature_delta', signature: block.signature }];
  }
  const pieces = ['', ...splitInPieces(JSON.stringify(block.input), 3)];
  return pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
}

/** The Message as the real event sequence; text and tool input each arrive in several deltas. */
export function anthropicStreamEvents(message: AnthropicMessage): StreamEvent[] {
  const { usage } = message;
  const events: StreamEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            output_tokens: 1,
            service_tier: usage.service_tier,
          },
        },
      },
    },
  ];
  for (const [index, block] of message.content.entries()) {
    events.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: emptyBlock(block) },
    });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    for (const delta of blockDeltas(block))
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  }
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}
