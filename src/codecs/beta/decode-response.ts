/** An upstream beta message (non-streamed) → the canonical response. B has exactly one choice. */
import type { DecodeContext } from '../codec.ts';
import type { AnswerPart, ChatResponse } from '../../ir/index.ts';
import { GatewayError, isJsonObject, type JsonValue } from '../../ir/index.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

function unexpected(detail: string): GatewayError {
  return new GatewayError('upstream', `the beta upstream sent an unexpected response: ${detail}`);
}

export function decodeResponse(body: unknown, context: DecodeContext): ChatResponse {
  if (!isJsonObject(body)) throw unexpected('not a JSON object');
  const content = Array.isArray(body.content) ? decodeContent(body.content) : [];
  return {
    id: typeof body.id === 'string' && body.id !== '' ? body.id : context.generateId('msg_'),
    model: typeof body.model === 'string' ? body.model : '',
    created: Math.floor(context.now() / 1000),
    choices: [{ index: 0, content, finishReason: decodeFinishReason(body.stop_reason, body.stop_sequence) }],
    usage: decodeUsage(body.usage),
  };
}

/**
 * Text, thinking and tool_use blocks become IR parts; redacted_thinking (no text to show) and
 * server-tool blocks have no IR form and are skipped (same-family traffic keeps them through
 * pass-through).
 */
function decodeContent(blocks: readonly JsonValue[]): AnswerPart[] {
  const parts: AnswerPart[] = [];
  for (const block of blocks) {
    if (!isJsonObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      const signature =
        typeof block.signature === 'string' && block.signature !== '' ? block.signature : undefined;
      parts.push(
        signature === undefined
          ? { type: 'reasoning', text: block.thinking }
          : { type: 'reasoning', text: block.thinking, signature },
      );
    } else if (block.type === 'tool_use') {
      const id = typeof block.id === 'string' ? block.id : '';
      const name = typeof block.name === 'string' ? block.name : '';
      const input = isJsonObject(block.input) ? block.input : {};
      parts.push({ type: 'tool-call', id, name, arguments: JSON.stringify(input) });
    }
  }
  return parts;
}
