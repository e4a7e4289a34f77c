/**
 * B `messages` (and the 1.x `role:"system"` entries) → IR messages. B carries tool results inside
 * user turns; the IR keeps them in their own `tool` message, so each user turn is split: the tool
 * message first, then the user's remaining blocks.
 */
import type { AssistantPart, Message, TextPart, ToolResultPart, UserPart } from '../../ir/index.ts';
import { invalidRequest, type JsonObject } from '../../ir/index.ts';
import { optionalBoolean, requireArray, requireObject, requireString } from '../shared/validate.ts';
import { readImageBlock, readTextBlock, withCacheControl } from './content-blocks.ts';

export interface DecodedMessages {
  messages: Message[];
  /** Text of `role:"system"` entries, hoisted in order after the top-level `system`. */
  system: TextPart[];
}

interface DecodeState extends DecodedMessages {
  /** tool_use id → tool name, to name the tool results that answer it. */
  callNames: Map<string, string>;
  /** Skip blocks the IR cannot carry instead of refusing them (same-family pass-through). */
  lenient: boolean;
}

export function decodeMessages(value: unknown, lenient = false): DecodedMessages {
  if (value === undefined || value === null) throw invalidRequest('messages: field required', 'messages');
  const list = requireArray(value, 'messages');
  if (list.length === 0) throw invalidRequest('messages: at least one message is required', 'messages');
  const state: DecodeState = { messages: [], system: [], callNames: new Map(), lenient };
  list.forEach((item, position) => {
    decodeMessage(item, `messages.${position}`, state);
  });
  return { messages: state.messages, system: state.system };
}

function decodeMessage(item: unknown, path: string, state: DecodeState): void {
  const message = requireObject(item, path);
  const contentPath = `${path}.content`;
  const role = message.role;
  if (role === 'user') decodeUser(message.content, contentPath, state);
  else if (role === 'assistant') decodeAssistant(message.content, contentPath, state);
  // 1.x clients may send system entries inside `messages`; the IR keeps all system text together.
  else if (role === 'system') state.system.push(...decodeSystem(message.content, contentPath));
  else throw invalidRequest(`${path}.role: expected "user" or "assistant"`, `${path}.role`);
}

/** Top-level `system` or a system entry's content: a string or text blocks. */
export function decodeSystem(value: unknown, path: string): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return requireArray(value, path).map((item, position) => {
    const blockPath = `${path}.${position}`;
    const block = requireObject(item, blockPath);
    if (block.type !== 'text')
      throw invalidRequest(`${blockPath}.type: expected "text"`, `${blockPath}.type`);
    return readTextBlock(block, blockPath);
  });
}

/** A string or a block list; a string is shorthand for one text block. */
function blockList(value: unknown, path: string): JsonObject[] | string {
  if (value === undefined || value === null) throw invalidRequest(`${path}: field required`, path);
  if (typeof value === 'string') return value;
  return requireArray(value, path).map((item, position) => requireObject(item, `${path}.${position}`));
}

function unsupportedBlock(block: JsonObject, path: string): Error {
  const type = typeof block.type === 'string' ? `"${block.type}"` : 'without a type';
  return invalidRequest(`${path}: content block ${type} is not supported here`, `${path}.type`);
}

function decodeUser(content: unknown, path: string, state: DecodeState): void {
  const blocks = blockList(content, path);
  if (typeof blocks === 'string') {
    state.messages.push({ role: 'user', content: [{ type: 'text', text: blocks }] });
    return;
  }
  const results: ToolResultPart[] = [];
  const parts: UserPart[] = [];
  blocks.forEach((block, position) => {
    const blockPath = `${path}.${position}`;
    if (block.type === 'text') parts.push(readTextBlock(block, blockPath));
    else if (block.type === 'image') parts.push(readImageBlock(block, blockPath));
    else if (block.type === 'tool_result') results.push(readToolResult(block, blockPath, state));
    else if (!state.lenient) throw unsupportedBlock(block, blockPath);
  });
  if (results.length > 0) state.messages.push({ role: 'tool', content: results });
  if (parts.length > 0 || results.length === 0) state.messages.push({ role: 'user', content: parts });
}

function readToolResult(block: JsonObject, path: string, state: DecodeState): ToolResultPart {
  const callId = requireString(block.tool_use_id, `${path}.tool_use_id`);
  // Lenient: the call may sit in a block the IR skipped (a server tool); the name is then unknown.
  const name = state.callNames.get(callId) ?? (state.lenient ? '' : undefined);
  if (name === undefined) {
    throw invalidRequest(
      `${path}.tool_use_id: no earlier tool_use block has id "${callId}"`,
      `${path}.tool_use_id`,
    );
  }
  const content = readToolResultContent(block.content, `${path}.content`, state.lenient);
  const isError = optionalBoolean(block.is_error, `${path}.is_error`) ?? false;
  const part: ToolResultPart = { type: 'tool-result', callId, name, content, isError };
  return withCacheControl(part, block, path);
}

function readToolResultContent(value: unknown, path: string, lenient: boolean): UserPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return requireArray(value, path).flatMap<UserPart>((item, position) => {
    const blockPath = `${path}.${position}`;
    const block = requireObject(item, blockPath);
    if (block.type === 'text') return [readTextBlock(block, blockPath)];
    if (block.type === 'image') return [readImageBlock(block, blockPath)];
    if (lenient) return [];
    throw unsupportedBlock(block, blockPath);
  });
}

/**
 * Thinking blocks stay out of the IR (no family but B can carry them); same-family traffic keeps
 * them because pass-through forwards the client's own body.
 */
function decodeAssistant(content: unknown, path: string, state: DecodeState): void {
  const blocks = blockList(content, path);
  if (typeof blocks === 'string') {
    state.messages.push({ role: 'assistant', content: [{ type: 'text', text: blocks }] });
    return;
  }
  const parts: AssistantPart[] = [];
  blocks.forEach((block, position) => {
    const blockPath = `${path}.${position}`;
    if (block.type === 'text') parts.push(readTextBlock(block, blockPath));
    else if (block.type === 'tool_use') parts.push(readToolUse(block, blockPath, state.callNames));
    else if (block.type !== 'thinking' && block.type !== 'redacted_thinking' && !state.lenient)
      throw unsupportedBlock(block, blockPath);
  });
  // A turn that held only thinking blocks says nothing the IR can carry.
  if (parts.length > 0 || blocks.length === 0) state.messages.push({ role: 'assistant', content: parts });
}

function readToolUse(block: JsonObject, path: string, callNames: Map<string, string>): AssistantPart {
  const id = requireString(block.id, `${path}.id`);
  const name = requireString(block.name, `${path}.name`);
  const input = requireObject(block.input, `${path}.input`);
  callNames.set(id, name);
  const part: AssistantPart = { type: 'tool-call', id, name, arguments: JSON.stringify(input) };
  return withCacheControl(part, block, path);
}
