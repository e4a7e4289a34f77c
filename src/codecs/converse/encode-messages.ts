/** Canonical messages → Converse `messages`: tool results ride in user turns, cache markers become `cachePoint` blocks. */
import type { CacheControl, ImagePart, Message, TextPart } from '../../ir/index.ts';
import { invalidRequest } from '../../ir/index.ts';
import { parseJsonObject } from '../shared/validate.ts';
import type {
  ConverseCachePoint,
  ConverseContentBlock,
  ConverseImageBlock,
  ConverseImageFormat,
  ConverseMessage,
  ConverseToolResultContent,
} from './wire.ts';

export const cachePoint: ConverseCachePoint = { cachePoint: { type: 'default' } };

const formatByMediaType: Readonly<Record<string, ConverseImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function encodeImage(part: ImagePart, path: string): ConverseImageBlock {
  if (part.source.kind !== 'base64')
    throw invalidRequest(`${path}: converse models take images only inline (base64), not by URL`, path);
  const format = formatByMediaType[part.source.mediaType.toLowerCase()];
  if (format === undefined)
    throw invalidRequest(
      `${path}: converse models take png, jpeg, gif or webp images, not ${part.source.mediaType}`,
      path,
    );
  return { image: { format, source: { bytes: part.source.data } } };
}

/** A block followed by a `cachePoint` when the part carries a cache marker. */
function withCachePoint(
  block: ConverseContentBlock,
  marker: CacheControl | undefined,
): ConverseContentBlock[] {
  return marker === undefined ? [block] : [block, cachePoint];
}

function resultContent(
  parts: ReadonlyArray<TextPart | ImagePart>,
  path: string,
): ConverseToolResultContent[] {
  return parts.map((part, position) =>
    part.type === 'text' ? { text: part.text } : encodeImage(part, `${path}.content.${position}`),
  );
}

function encodeContent(message: Message, path: string): ConverseContentBlock[] {
  const blocks: ConverseContentBlock[] = [];
  message.content.forEach((part, position) => {
    const at = `${path}.content.${position}`;
    switch (part.type) {
      case 'text':
        // Converse refuses empty text blocks ("text content blocks must be non-empty").
        if (part.text !== '') blocks.push(...withCachePoint({ text: part.text }, part.cacheControl));
        return;
      case 'image':
        blocks.push(...withCachePoint(encodeImage(part, at), part.cacheControl));
        return;
      case 'tool-call':
        blocks.push(
          ...withCachePoint(
            {
              toolUse: {
                toolUseId: part.id,
                name: part.name,
                input: parseJsonObject(part.arguments, `${at}.arguments`),
              },
            },
            part.cacheControl,
          ),
        );
        return;
      case 'tool-result':
        blocks.push(
          ...withCachePoint(
            {
              toolResult: {
                toolUseId: part.callId,
                content: resultContent(part.content, at),
                status: part.isError ? 'error' : 'success',
              },
            },
            part.cacheControl,
          ),
        );
        return;
    }
  });
  return blocks;
}

/** Converse wants user and assistant turns to alternate: adjacent turns of one role are joined. */
export function encodeMessages(messages: readonly Message[]): ConverseMessage[] {
  const encoded: ConverseMessage[] = [];
  messages.forEach((message, position) => {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = encodeContent(message, `messages[${position}]`);
    if (content.length === 0) return;
    const last = encoded.at(-1);
    if (last?.role === role) last.content.push(...content);
    else encoded.push({ role, content });
  });
  return encoded;
}
