/** An upstream Converse answer (non-streamed) → the canonical response. Converse has one choice and no id. */
import type { DecodeContext } from '../codec.ts';
import type { AnswerPart, ChatResponse, JsonValue } from '../../ir/index.ts';
import { GatewayError, isJsonObject } from '../../ir/index.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

function unexpected(detail: string): GatewayError {
  return new GatewayError('upstream', `the converse upstream sent an unexpected response: ${detail}`);
}

export function decodeResponse(body: unknown, context: DecodeContext): ChatResponse {
  if (!isJsonObject(body)) throw unexpected('not a JSON object');
  const output = isJsonObject(body.output) ? body.output : {};
  const message = isJsonObject(output.message) ? output.message : {};
  const content = Array.isArray(message.content) ? decodeContent(message.content) : [];
  return {
    id: context.generateId('msg_'),
    model: '',
    created: Math.floor(context.now() / 1000),
    choices: [{ index: 0, content, finishReason: decodeFinishReason(body.stopReason) }],
    usage: decodeUsage(body.usage),
  };
}

/**
 * Text, reasoningText and toolUse blocks become IR parts; redacted reasoning and guardrail traces
 * have no IR form.
 */
function decodeContent(blocks: readonly JsonValue[]): AnswerPart[] {
  const parts: AnswerPart[] = [];
  for (const block of blocks) {
    if (!isJsonObject(block)) continue;
    if (typeof block.text === 'string') {
      parts.push({ type: 'text', text: block.text });
    } else if (isJsonObject(block.reasoningContent) && isJsonObject(block.reasoningContent.reasoningText)) {
      const { text, signature } = block.reasoningContent.reasoningText;
      const thought: AnswerPart = { type: 'reasoning', text: typeof text === 'string' ? text : '' };
      if (typeof signature === 'string' && signature !== '') thought.signature = signature;
      parts.push(thought);
    } else if (isJsonObject(block.toolUse)) {
      const use = block.toolUse;
      parts.push({
        type: 'tool-call',
        id: typeof use.toolUseId === 'string' ? use.toolUseId : '',
        name: typeof use.name === 'string' ? use.name : '',
        arguments: JSON.stringify(isJsonObject(use.input) ? use.input : {}),
      });
    }
  }
  return parts;
}
