/**
 * C `contents` → IR messages. C turns mix tool results (`functionResponse`) into user turns and
 * usually carry no call ids: results are split into their own IR tool message, and ids are
 * synthesized deterministically (`call_<turn>_<n>`) so a result can name the call it answers.
 */
import { invalidRequest } from '../../ir/index.ts';
import type {
  AssistantPart,
  ImagePart,
  JsonObject,
  Message,
  ToolResultPart,
  UserPart,
} from '../../ir/index.ts';
import { optionalString, requireArray, requireObject, requireString } from '../shared/validate.ts';

/** A call of the latest model turn(s), waiting for its result. */
interface PendingCall {
  id: string;
  name: string;
  answered: boolean;
}

interface ContentsState {
  pending: PendingCall[];
  previousRole: string | undefined;
  /** Pass-through: the client's own body goes upstream, so content the IR cannot carry is skipped, not refused. */
  lenient: boolean;
}

/** Content the IR cannot carry: a 400 naming it, or nothing in lenient mode. */
function unsupported(state: ContentsState, message: string, path: string): void {
  if (!state.lenient) throw invalidRequest(message, path);
}

export function decodeContents(value: unknown, lenient = false): Message[] {
  const contents = requireArray(value, 'contents');
  if (contents.length === 0) throw invalidRequest('contents: at least one content is required', 'contents');
  const state: ContentsState = { pending: [], previousRole: undefined, lenient };
  const messages: Message[] = [];
  contents.forEach((item, turn) => {
    decodeContent(item, turn, state, messages);
  });
  return messages;
}

function decodeContent(item: unknown, turn: number, state: ContentsState, messages: Message[]): void {
  const path = `contents[${turn}]`;
  const content = requireObject(item, path);
  // "If not set, the service will default to 'user'"; older clients send results in role 'function'.
  const role = optionalString(content.role, `${path}.role`) ?? 'user';
  const parts = requireArray(content.parts, `${path}.parts`);
  if (role === 'model') {
    if (state.previousRole !== 'model') state.pending = [];
    const assistant = decodeModelParts(parts, turn, state);
    if (assistant.length > 0) messages.push({ role: 'assistant', content: assistant });
  } else if (role === 'user' || role === 'function') {
    decodeUserParts(parts, turn, state, messages);
  } else {
    unsupported(state, `${path}.role: must be "user" or "model"`, `${path}.role`);
  }
  state.previousRole = role;
}

function decodeModelParts(parts: unknown[], turn: number, state: ContentsState): AssistantPart[] {
  const out: AssistantPart[] = [];
  let calls = 0;
  parts.forEach((item, position) => {
    const path = `contents[${turn}].parts[${position}]`;
    const part = requireObject(item, path);
    // Thoughts are the model's private reasoning: the IR has no slot for them (nor for thoughtSignature).
    if (part.thought === true) return;
    if (part.text !== undefined) {
      const text = requireString(part.text, `${path}.text`);
      if (text !== '') out.push({ type: 'text', text });
    } else if (part.functionCall !== undefined) {
      const call = requireObject(part.functionCall, `${path}.functionCall`);
      const id = optionalString(call.id, `${path}.functionCall.id`) ?? `call_${turn}_${calls}`;
      const name = requireString(call.name, `${path}.functionCall.name`);
      const args =
        call.args === undefined || call.args === null
          ? {}
          : requireObject(call.args, `${path}.functionCall.args`);
      calls++;
      state.pending.push({ id, name, answered: false });
      out.push({ type: 'tool-call', id, name, arguments: JSON.stringify(args) });
    } else {
      unsupported(state, `${path}: model turns may hold only text and functionCall parts`, path);
    }
  });
  return out;
}

function decodeUserParts(parts: unknown[], turn: number, state: ContentsState, messages: Message[]): void {
  const results: ToolResultPart[] = [];
  const userParts: UserPart[] = [];
  parts.forEach((item, position) => {
    const path = `contents[${turn}].parts[${position}]`;
    const part = requireObject(item, path);
    if (part.functionResponse !== undefined) {
      results.push(
        decodeFunctionResponse(part.functionResponse, path, `call_${turn}_${results.length}`, state),
      );
    } else if (part.functionCall !== undefined) {
      unsupported(state, `${path}: functionCall parts belong in model turns`, path);
    } else {
      const userPart = decodeUserPart(part, path, state);
      if (userPart !== undefined) userParts.push(userPart);
    }
  });
  // Tool results first (they answer the previous model turn), then whatever else the user said.
  if (results.length > 0) messages.push({ role: 'tool', content: results });
  if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
}

function decodeUserPart(part: JsonObject, path: string, state: ContentsState): UserPart | undefined {
  if (part.text !== undefined) {
    const text = requireString(part.text, `${path}.text`);
    return text === '' ? undefined : { type: 'text', text };
  }
  if (part.inlineData !== undefined) return decodeInlineData(part.inlineData, `${path}.inlineData`, state);
  if (part.fileData !== undefined) return decodeFileData(part.fileData, `${path}.fileData`, state);
  unsupported(
    state,
    `${path}: unsupported part (expected text, inlineData, fileData or functionResponse)`,
    path,
  );
  return undefined;
}

/** The IR carries images only; other media (PDF, audio, video) is refused, or skipped in lenient mode. */
function isImage(mimeType: string, path: string, state: ContentsState): boolean {
  if (mimeType.startsWith('image/')) return true;
  unsupported(state, `${path}: only image media is supported, got "${mimeType}"`, path);
  return false;
}

function decodeInlineData(value: unknown, path: string, state: ContentsState): ImagePart | undefined {
  const blob = requireObject(value, path);
  const mediaType = requireString(blob.mimeType, `${path}.mimeType`);
  if (!isImage(mediaType, `${path}.mimeType`, state)) return undefined;
  return {
    type: 'image',
    source: { kind: 'base64', mediaType, data: requireString(blob.data, `${path}.data`) },
  };
}

function decodeFileData(value: unknown, path: string, state: ContentsState): ImagePart | undefined {
  const file = requireObject(value, path);
  const url = requireString(file.fileUri, `${path}.fileUri`);
  const mediaType = optionalString(file.mimeType, `${path}.mimeType`);
  if (mediaType === undefined) return { type: 'image', source: { kind: 'url', url } };
  if (!isImage(mediaType, `${path}.mimeType`, state)) return undefined;
  return { type: 'image', source: { kind: 'url', url, mediaType } };
}

function decodeFunctionResponse(
  value: unknown,
  path: string,
  fallbackId: string,
  state: ContentsState,
): ToolResultPart {
  const at = `${path}.functionResponse`;
  const result = requireObject(value, at);
  const name = requireString(result.name, `${at}.name`);
  const response = result.response === undefined ? {} : requireObject(result.response, `${at}.response`);
  const callId = matchCall(state, optionalString(result.id, `${at}.id`), name) ?? fallbackId;
  const content: ToolResultPart['content'] = [{ type: 'text', text: responseText(response, name) }];
  if (result.parts !== undefined) {
    requireArray(result.parts, `${at}.parts`).forEach((item, index) => {
      const part = requireObject(item, `${at}.parts[${index}]`);
      const image = decodeUserPart(part, `${at}.parts[${index}]`, state);
      if (image !== undefined) content.push(image);
    });
  }
  return { type: 'tool-result', callId, name, content, isError: response.error !== undefined };
}

/** The result's own id, else the first unanswered call of the same name (C pairs by name and position). */
function matchCall(state: ContentsState, id: string | undefined, name: string): string | undefined {
  const call = state.pending.find((pending) =>
    id === undefined ? !pending.answered && pending.name === name : pending.id === id,
  );
  if (call !== undefined) call.answered = true;
  return id ?? call?.id;
}

/**
 * `{output: "…"}` / `{error: "…"}` carry plain text (the family's documented convention), and so
 * does `{name, content: "…"}` (what the Vercel AI SDK sends); anything else is JSON.
 */
function responseText(response: JsonObject, name: string): string {
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response.output === 'string') return response.output;
  if (keys.length === 1 && typeof response.error === 'string') return response.error;
  const named = keys.length === 1 || (keys.length === 2 && response.name === name);
  if (named && typeof response.content === 'string') return response.content;
  return JSON.stringify(response);
}
