/**
 * IR messages → C `contents`. C wants tool results inside the next user turn, no empty text, and
 * strictly paired function call / response turns, so tool messages are merged with the user
 * message after them and consecutive same-role turns are merged.
 */
import { invalidRequest, isJsonObject } from '../../ir/index.ts';
import type {
  AssistantPart,
  ImagePart,
  JsonObject,
  Message,
  ToolResultPart,
  UserPart,
} from '../../ir/index.ts';
import { parseJsonObject } from '../shared/validate.ts';
import type { GammaContent, GammaPart } from './wire.ts';

/**
 * C 3.x thinking models reject replayed function calls without a `thoughtSignature`; the IR cannot
 * carry the real one, so calls get the value the family documents for history from other models.
 * Only the first call of a turn carries it, as with parallel calls from the model itself.
 */
const skipSignature = 'skip_thought_signature_validator';

const inlineOnlyMessage = 'gamma models take images inline: send the image as base64 (a data: URL)';

/**
 * Call ids are NOT sent (neither `functionCall.id` nor `functionResponse.id`): the public C API
 * pairs calls and results by name and position, and ids minted by other families mean nothing to it.
 */
export function encodeContents(messages: readonly Message[]): GammaContent[] {
  const contents: GammaContent[] = [];
  messages.forEach((message, index) => {
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = encodeMessageParts(message, index);
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  for (const content of contents) if (content.role === 'model') signFirstCall(content.parts);
  checkResponsesFollowCalls(contents);
  return contents;
}

/**
 * C's rule: a function-call turn is followed by a turn with as many function responses. History
 * that breaks it (a result the client dropped) is a clear 400 here rather than an upstream one; a
 * last model turn is left to the upstream.
 */
function checkResponsesFollowCalls(contents: readonly GammaContent[]): void {
  contents.forEach((content, position) => {
    const next = contents[position + 1];
    if (content.role !== 'model' || next === undefined) return;
    const calls = content.parts.filter((part) => 'functionCall' in part).length;
    const responses = next.parts.filter((part) => 'functionResponse' in part).length;
    if (calls !== responses) {
      throw invalidRequest(
        `messages: a turn with ${calls} tool call(s) is followed by ${responses} tool result(s); gamma models need one result per call, right after the calls`,
        'messages',
      );
    }
  });
}

function signFirstCall(parts: GammaPart[]): void {
  const first = parts.find((part) => 'functionCall' in part);
  if (first !== undefined && 'functionCall' in first) first.thoughtSignature = skipSignature;
}

function encodeMessageParts(message: Message, index: number): GammaPart[] {
  const path = `messages[${index}]`;
  switch (message.role) {
    case 'assistant':
      return message.content.flatMap((part, position) =>
        encodeAssistantPart(part, `${path}.content[${position}]`),
      );
    case 'user':
      return message.content.flatMap((part, position) =>
        encodeUserPart(part, `${path}.content[${position}]`),
      );
    case 'tool':
      return encodeToolResults(message.content, path);
  }
}

function encodeAssistantPart(part: AssistantPart, path: string): GammaPart[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
  const args = parseJsonObject(part.arguments, `${path}.arguments`);
  return [{ functionCall: { name: part.name, args } }];
}

function encodeUserPart(part: UserPart, path: string): GammaPart[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
  return [encodeImage(part, path)];
}

export function encodeImage(part: ImagePart, path: string): GammaPart {
  const source = part.source;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const inline = dataUrl(source.url);
  if (inline !== undefined) return { inlineData: inline };
  if (!isGammaFileUri(source.url)) throw invalidRequest(inlineOnlyMessage, path);
  return {
    fileData:
      source.mediaType === undefined
        ? { fileUri: source.url }
        : { fileUri: source.url, mimeType: source.mediaType },
  };
}

/** Only URIs C itself serves are safe as `fileData`: cloud storage and its Files API. */
function isGammaFileUri(url: string): boolean {
  return url.startsWith('gs://') || url.startsWith('https://generativelanguage.googleapis.com/');
}

function dataUrl(url: string): { mimeType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  const header = url.slice(5, comma);
  if (comma === -1 || !header.endsWith(';base64')) return undefined;
  return { mimeType: header.slice(0, -';base64'.length), data: url.slice(comma + 1) };
}

/**
 * One functionResponse per result, in call order. Images in a result follow as inline parts of the
 * same user turn (C's multimodal `functionResponse.parts` is newer and not on every model).
 */
function encodeToolResults(results: readonly ToolResultPart[], path: string): GammaPart[] {
  const parts: GammaPart[] = [];
  const images: GammaPart[] = [];
  results.forEach((result, index) => {
    const texts: string[] = [];
    result.content.forEach((part, position) => {
      if (part.type === 'text') texts.push(part.text);
      else images.push(encodeImage(part, `${path}.content[${index}].content[${position}]`));
    });
    parts.push({
      functionResponse: { name: result.name, response: responseObject(texts.join('\n'), result.isError) },
    });
  });
  return [...parts, ...images];
}

/** C wants an object: a JSON object result goes as is, other text as `{output}` (or `{error}`). */
function responseObject(text: string, isError: boolean): JsonObject {
  if (isError) return { error: text };
  if (text.trimStart().startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (isJsonObject(value)) return value;
    } catch {
      // Not JSON after all: fall through to the plain-text wrapper.
    }
  }
  return { output: text };
}
