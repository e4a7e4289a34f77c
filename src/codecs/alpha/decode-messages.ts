/** A `messages` → IR system parts and messages. */
import {
  invalidRequest,
  type AssistantPart,
  type JsonObject,
  type JsonValue,
  type Message,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
} from '../../ir/index.ts';
import { optionalString, requireArray, requireObject, requireString } from '../shared/validate.ts';
import { decodeTextContent, decodeToolContent, decodeUserContent } from './decode-content.ts';

/** Legacy `function_call`s have no id: both the call and its `function` result get this one, by position. */
export function legacyCallId(ordinal: number): string {
  return `call_legacy_${ordinal}`;
}

interface MessagesState {
  /** Pass-through: skip what the IR cannot carry instead of refusing (the client's body goes upstream). */
  lenient: boolean;
  system: TextPart[];
  messages: Message[];
  /** Tool-call id → name, so results (which carry only the id) get their name back. */
  callNames: Map<string, string>;
  legacyCalls: number;
  /** Legacy calls not yet answered by a `function` message, oldest first. */
  unansweredLegacy: Array<{ id: string; name: string }>;
  /** The IR tool message that consecutive `tool`/`function` messages join. */
  toolRun: ToolResultPart[] | undefined;
}

export interface DecodedMessages {
  system: TextPart[];
  messages: Message[];
}

export function decodeMessages(value: JsonValue | undefined, lenient: boolean): DecodedMessages {
  const list = requireArray(value, 'messages');
  if (list.length === 0) throw invalidRequest('messages: must not be empty', 'messages');
  const state: MessagesState = {
    lenient,
    system: [],
    messages: [],
    callNames: new Map(),
    legacyCalls: 0,
    unansweredLegacy: [],
    toolRun: undefined,
  };
  list.forEach((item, index) => {
    decodeMessage(state, requireObject(item, `messages[${index}]`), `messages[${index}]`);
  });
  return { system: state.system, messages: state.messages };
}

function decodeMessage(state: MessagesState, message: JsonObject, path: string): void {
  const role = typeof message.role === 'string' ? message.role : '';
  switch (role) {
    case 'system':
    case 'developer':
      // Hoisted out of the conversation, so it does not interrupt a run of tool results. Empty
      // text says nothing and B rejects empty blocks.
      for (const part of decodeTextContent(message.content, `${path}.content`, state.lenient)) {
        if (part.text !== '') state.system.push(part);
      }
      return;
    case 'user':
      state.messages.push({
        role: 'user',
        content: decodeUserContent(message.content, `${path}.content`, state.lenient),
      });
      state.toolRun = undefined;
      return;
    case 'assistant':
      state.messages.push({ role: 'assistant', content: decodeAssistant(state, message, path) });
      state.toolRun = undefined;
      return;
    case 'tool':
      addResult(state, decodeToolResult(state, message, path));
      return;
    case 'function':
      addResult(state, decodeFunctionResult(state, message, path));
      return;
    default:
      if (state.lenient) return;
      throw invalidRequest(
        `${path}.role: ${JSON.stringify(message.role ?? null)} is not a valid role`,
        `${path}.role`,
      );
  }
}

function addResult(state: MessagesState, result: ToolResultPart): void {
  if (state.toolRun === undefined) {
    state.toolRun = [];
    state.messages.push({ role: 'tool', content: state.toolRun });
  }
  state.toolRun.push(result);
}

function decodeAssistant(state: MessagesState, message: JsonObject, path: string): AssistantPart[] {
  const content = message.content;
  const parts: AssistantPart[] =
    content === undefined || content === null
      ? []
      : // Empty text next to tool calls is common in A and means nothing; B rejects empty blocks.
        decodeTextContent(content, `${path}.content`, state.lenient, true).filter((part) => part.text !== '');
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    requireArray(message.tool_calls, `${path}.tool_calls`).forEach((call, index) => {
      const part = decodeToolCall(state, call, `${path}.tool_calls[${index}]`);
      if (part !== undefined) parts.push(part);
    });
  }
  if (message.function_call !== undefined && message.function_call !== null) {
    const id = legacyCallId(state.legacyCalls++);
    const call = decodeFunction(message.function_call, `${path}.function_call`, id);
    state.unansweredLegacy.push({ id, name: call.name });
    state.callNames.set(id, call.name);
    parts.push(call);
  }
  return parts;
}

function decodeToolCall(state: MessagesState, value: JsonValue, path: string): ToolCallPart | undefined {
  const call = requireObject(value, path);
  if (call.type !== undefined && call.type !== 'function') {
    if (state.lenient) return undefined;
    throw invalidRequest(`${path}.type: only "function" tool calls are supported`, `${path}.type`);
  }
  const part = decodeFunction(call.function, `${path}.function`, requireString(call.id, `${path}.id`));
  state.callNames.set(part.id, part.name);
  return part;
}

/** `{name, arguments}`; arguments are JSON text in A (an object from a lax client is stringified). */
function decodeFunction(value: JsonValue | undefined, path: string, id: string): ToolCallPart {
  const fn = requireObject(value, path);
  const name = requireString(fn.name, `${path}.name`);
  const raw = fn.arguments;
  const args = raw === undefined || raw === null ? '' : typeof raw === 'string' ? raw : JSON.stringify(raw);
  return { type: 'tool-call', id, name, arguments: args };
}

function decodeToolResult(state: MessagesState, message: JsonObject, path: string): ToolResultPart {
  const callId = requireString(message.tool_call_id, `${path}.tool_call_id`);
  const name = state.callNames.get(callId) ?? (state.lenient ? '' : undefined);
  if (name === undefined) {
    throw invalidRequest(
      `${path}.tool_call_id: no earlier assistant message has a tool call with id ${JSON.stringify(callId)}`,
      `${path}.tool_call_id`,
    );
  }
  const content = decodeToolContent(message.content, `${path}.content`, state.lenient);
  return { type: 'tool-result', callId, name, content, isError: false };
}

/** Legacy `{role:'function', name, content}`: answers the oldest unanswered legacy call of that name. */
function decodeFunctionResult(state: MessagesState, message: JsonObject, path: string): ToolResultPart {
  const name = requireString(message.name, `${path}.name`);
  const position = state.unansweredLegacy.findIndex((call) => call.name === name);
  const callId =
    position === -1
      ? legacyCallId(state.legacyCalls++)
      : (state.unansweredLegacy.splice(position, 1)[0]?.id ?? '');
  const text = optionalString(message.content, `${path}.content`);
  const content: TextPart[] = text === undefined ? [] : [{ type: 'text', text }];
  return { type: 'tool-result', callId, name, content, isError: false };
}
