/** IR system parts and messages → A `messages`. */
import type {
  AssistantPart,
  ChatRequest,
  ImagePart,
  Message,
  ToolResultPart,
  UserPart,
} from '../../ir/index.ts';
import type {
  AlphaImagePart,
  AlphaMessage,
  AlphaTextPart,
  AlphaToolCall,
  AlphaUserContent,
  AlphaUserPart,
} from './wire.ts';

export function encodeImage(part: ImagePart): AlphaImagePart {
  const source = part.source;
  const url = source.kind === 'base64' ? `data:${source.mediaType};base64,${source.data}` : source.url;
  return {
    type: 'image_url',
    image_url: part.detail === undefined ? { url } : { url, detail: part.detail },
  };
}

/** One text part is sent as a plain string (the form every A-compatible server accepts). */
function encodeUserContent(parts: UserPart[]): AlphaUserContent {
  const first = parts[0];
  if (parts.length === 1 && first?.type === 'text') return first.text;
  return parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : encodeImage(part)));
}

function encodeAssistant(parts: AssistantPart[]): AlphaMessage {
  const texts: AlphaTextPart[] = [];
  const calls: AlphaToolCall[] = [];
  for (const part of parts) {
    if (part.type === 'text') texts.push({ type: 'text', text: part.text });
    else
      calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  // A wants `null` content beside tool calls and a string otherwise.
  const content =
    texts.length === 0 ? (calls.length > 0 ? null : '') : texts.length === 1 ? (texts[0]?.text ?? '') : texts;
  return calls.length > 0
    ? { role: 'assistant', content, tool_calls: calls }
    : { role: 'assistant', content };
}

const startsWithError = /^error\b/i;

/**
 * A tool message carries text only: text parts are joined (an error result says `Error: …`, A
 * having no flag for it); images (A has no slot for them in a tool message) follow the run of
 * tool messages in one user message, labelled with their call.
 */
function encodeToolResult(result: ToolResultPart, images: AlphaUserPart[], warnings: string[]): AlphaMessage {
  const texts: string[] = [];
  let labelled = false;
  for (const part of result.content) {
    if (part.type === 'text') texts.push(part.text);
    else {
      if (!labelled) {
        images.push({ type: 'text', text: `Image returned by tool call ${result.callId} (${result.name}):` });
        labelled = true;
      }
      images.push(encodeImage(part));
    }
  }
  if (labelled) {
    warnings.push(
      `alpha models take no images in tool messages: the image from tool call ${result.callId} was sent in a user message after the tool results`,
    );
  }
  // A has no error flag: the model learns of the failure from the text, as A tools report it.
  const text = texts.join('\n');
  const content = result.isError && !startsWithError.test(text) ? `Error: ${text}` : text;
  return { role: 'tool', tool_call_id: result.callId, content };
}

function encodeMessage(message: Message, out: AlphaMessage[], warnings: string[]): void {
  switch (message.role) {
    case 'user':
      out.push({ role: 'user', content: encodeUserContent(message.content) });
      return;
    case 'assistant':
      out.push(encodeAssistant(message.content));
      return;
    case 'tool': {
      const images: AlphaUserPart[] = [];
      for (const result of message.content) out.push(encodeToolResult(result, images, warnings));
      if (images.length > 0) out.push({ role: 'user', content: images });
      return;
    }
  }
}

/** System parts first, one system message each (A accepts many); then the conversation in order. */
export function encodeMessages(request: ChatRequest, warnings: string[]): AlphaMessage[] {
  const out: AlphaMessage[] = request.system.map((part) => ({ role: 'system', content: part.text }));
  for (const message of request.messages) encodeMessage(message, out, warnings);
  return out;
}
