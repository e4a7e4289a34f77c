/**
 * Responses `instructions` + `input` (a string or a list of items) → IR system parts and messages.
 * Messages of every role, `function_call` and `function_call_output` items; `reasoning` items (an
 * A reasoning model's own state, replayed by Codex) have no IR form and are skipped, like B's
 * thinking blocks on the chat surfaces.
 */
import {
  invalidRequest,
  type AssistantPart,
  type ImagePart,
  type JsonObject,
  type JsonValue,
  type Message,
  type TextPart,
  type ToolResultPart,
  type UserPart,
} from '../../ir/index.ts';
import { decodeImageUrl } from '../../codecs/alpha/decode-content.ts';
import { optionalString, requireArray, requireObject, requireString } from '../../codecs/shared/validate.ts';
import { namespacedName } from './namespaces.ts';

export interface DecodedInput {
  system: TextPart[];
  messages: Message[];
  /** Types of built-in tool call items left out (only when built-in tools are dropped). */
  dropped: Set<string>;
}

interface InputState {
  system: TextPart[];
  messages: Message[];
  dropped: Set<string>;
  /** Built-in tools are dropped: so are their call items (`web_search_call`…) in the history. */
  dropBuiltIns: boolean;
  /** call_id → tool name, so `function_call_output` items (which carry only the id) get theirs. */
  callNames: Map<string, string>;
}

export function decodeInput(
  value: JsonValue | undefined,
  instructions: string | undefined,
  dropBuiltIns = false,
): DecodedInput {
  const state: InputState = {
    system: [],
    messages: [],
    dropped: new Set(),
    dropBuiltIns,
    callNames: new Map(),
  };
  if (instructions !== undefined && instructions !== '')
    state.system.push({ type: 'text', text: instructions });
  if (typeof value === 'string') {
    state.messages.push({ role: 'user', content: [{ type: 'text', text: value }] });
    return state;
  }
  const items = requireArray(value, 'input');
  if (items.length === 0) throw invalidRequest('input: must not be empty', 'input');
  items.forEach((item, index) => {
    decodeItem(state, requireObject(item, `input[${index}]`), `input[${index}]`);
  });
  return state;
}

function decodeItem(state: InputState, item: JsonObject, path: string): void {
  // `type` is optional on messages (the SDK's EasyInputMessage).
  const type = item.type === undefined ? 'message' : item.type;
  switch (typeof type === 'string' ? type : '') {
    case 'message':
      decodeMessage(state, item, path);
      return;
    case 'function_call': {
      const callId = requireString(item.call_id, `${path}.call_id`);
      const bare = requireString(item.name, `${path}.name`);
      const namespace = optionalString(item.namespace, `${path}.namespace`);
      const name = namespace === undefined ? bare : namespacedName(namespace, bare);
      const raw = item.arguments;
      const args =
        raw === undefined || raw === null ? '' : typeof raw === 'string' ? raw : JSON.stringify(raw);
      state.callNames.set(callId, name);
      assistantTurn(state).push({ type: 'tool-call', id: callId, name, arguments: args });
      return;
    }
    case 'function_call_output':
      toolTurn(state).push(decodeCallOutput(state, item, path));
      return;
    case 'reasoning':
      return;
    default:
      if (state.dropBuiltIns && typeof type === 'string' && /_call(_output)?$/.test(type)) {
        state.dropped.add(type);
        return;
      }
      throw invalidRequest(
        `${path}.type: ${JSON.stringify(type)} items are not supported here (only messages, function_call and function_call_output)`,
        `${path}.type`,
      );
  }
}

function decodeMessage(state: InputState, item: JsonObject, path: string): void {
  const role = item.role;
  const contentPath = `${path}.content`;
  switch (typeof role === 'string' ? role : '') {
    case 'system':
    case 'developer':
      // Hoisted like the chat surface's system messages; empty text says nothing (B rejects it).
      for (const part of decodeParts(item.content, contentPath, 'system')) {
        if (part.type === 'text' && part.text !== '') state.system.push(part);
      }
      return;
    case 'user':
      state.messages.push({ role: 'user', content: decodeParts(item.content, contentPath, 'user') });
      return;
    case 'assistant': {
      const turn = assistantTurn(state);
      for (const part of decodeParts(item.content, contentPath, 'assistant')) {
        if (part.type === 'text' && part.text !== '') turn.push(part);
      }
      return;
    }
    default:
      throw invalidRequest(
        `${path}.role: ${JSON.stringify(role ?? null)} is not a valid role (user, assistant, system or developer)`,
        `${path}.role`,
      );
  }
}

/** The assistant turn being built: calls and text that follow each other form one turn. */
function assistantTurn(state: InputState): AssistantPart[] {
  const last = state.messages.at(-1);
  if (last?.role === 'assistant') return last.content;
  const content: AssistantPart[] = [];
  state.messages.push({ role: 'assistant', content });
  return content;
}

/** Outputs that follow each other answer one turn's calls: one IR tool message. */
function toolTurn(state: InputState): ToolResultPart[] {
  const last = state.messages.at(-1);
  if (last?.role === 'tool') return last.content;
  const content: ToolResultPart[] = [];
  state.messages.push({ role: 'tool', content });
  return content;
}

function decodeCallOutput(state: InputState, item: JsonObject, path: string): ToolResultPart {
  const callId = requireString(item.call_id, `${path}.call_id`);
  const name = state.callNames.get(callId);
  if (name === undefined) {
    throw invalidRequest(
      `${path}.call_id: no earlier function_call item has call_id ${JSON.stringify(callId)}`,
      `${path}.call_id`,
    );
  }
  const output = item.output;
  const content: Array<TextPart | ImagePart> =
    typeof output === 'string'
      ? [{ type: 'text', text: output }]
      : decodeParts(output, `${path}.output`, 'user');
  return { type: 'tool-result', callId, name, content, isError: false };
}

type PartRole = 'user' | 'assistant' | 'system';

/** Which content part types each role may send (the API's own rule). */
const partTypes: Record<PartRole, ReadonlySet<string>> = {
  user: new Set(['input_text', 'input_image']),
  system: new Set(['input_text']),
  // Replayed history: the model's own text (and refusals, which the client saw as text).
  assistant: new Set(['output_text', 'refusal', 'input_text']),
};

function decodeParts(value: JsonValue | undefined, path: string, role: PartRole): UserPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const allowed = partTypes[role];
  return requireArray(value, path).map((entry, index): UserPart => {
    const partPath = `${path}[${index}]`;
    const part = requireObject(entry, partPath);
    const type = typeof part.type === 'string' ? part.type : '';
    if (!allowed.has(type)) {
      throw invalidRequest(
        `${partPath}.type: ${JSON.stringify(part.type ?? null)} is not supported in ${role} content`,
        `${partPath}.type`,
      );
    }
    if (type === 'input_image') return decodeImage(part, partPath);
    if (type === 'refusal') return { type: 'text', text: requireString(part.refusal, `${partPath}.refusal`) };
    return { type: 'text', text: requireString(part.text, `${partPath}.text`) };
  });
}

/** `input_image`: a URL (https or a base64 data URL); uploaded files (`file_id`) are not served here. */
function decodeImage(part: JsonObject, path: string): ImagePart {
  const url = optionalString(part.image_url, `${path}.image_url`);
  if (url === undefined) {
    throw invalidRequest(
      `${path}.image_url: required (file_id images need the provider's file store, which modelgate does not have)`,
      `${path}.image_url`,
    );
  }
  const image: ImagePart = { type: 'image', source: decodeImageUrl(url, `${path}.image_url`) };
  const detail = optionalString(part.detail, `${path}.detail`);
  if (detail !== undefined && detail !== 'auto') image.detail = detail;
  return image;
}
