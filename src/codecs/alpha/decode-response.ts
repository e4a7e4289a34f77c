/** An A (or OpenAI-compatible) `chat.completion` body → canonical response. Tolerant of missing fields. */
import {
  isJsonObject,
  type AssistantPart,
  type ChatResponse,
  type Choice,
  type JsonObject,
  type JsonValue,
} from '../../ir/index.ts';
import type { DecodeContext } from '../codec.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { decodeUsage } from './usage.ts';

/** Arguments are JSON text in A; a lax server may send an object. */
export function argumentsText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stringOr(value: JsonValue | undefined, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** `content` as a string or (some servers) an array of text parts. */
function contentText(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  let text = '';
  for (const part of value) if (isJsonObject(part) && typeof part.text === 'string') text += part.text;
  return text;
}

function decodeToolCalls(message: JsonObject, context: DecodeContext, parts: AssistantPart[]): void {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const call of calls) {
    if (!isJsonObject(call)) continue;
    const fn = isJsonObject(call.function) ? call.function : {};
    parts.push({
      type: 'tool-call',
      id: stringOr(call.id, '') || context.generateId('call_'),
      name: stringOr(fn.name, ''),
      arguments: argumentsText(fn.arguments),
    });
  }
  // Legacy answers carry no id: one is invented so the IR call can be answered later.
  if (isJsonObject(message.function_call)) {
    const fn = message.function_call;
    parts.push({
      type: 'tool-call',
      id: context.generateId('call_'),
      name: stringOr(fn.name, ''),
      arguments: argumentsText(fn.arguments),
    });
  }
}

function decodeChoice(value: JsonValue, position: number, context: DecodeContext): Choice {
  const choice = isJsonObject(value) ? value : {};
  const message = isJsonObject(choice.message) ? choice.message : {};
  const parts: AssistantPart[] = [];
  // A refusal is what the model said instead of an answer: the client sees it as text.
  const text = contentText(message.content) || stringOr(message.refusal, '');
  if (text !== '') parts.push({ type: 'text', text });
  decodeToolCalls(message, context, parts);
  const hasToolCalls = parts.some((part) => part.type === 'tool-call');
  return {
    index: typeof choice.index === 'number' ? choice.index : position,
    content: parts,
    finishReason: decodeFinishReason(choice.finish_reason, hasToolCalls, choice.stop_reason),
  };
}

export function decodeResponse(body: unknown, context: DecodeContext): ChatResponse {
  const root = isJsonObject(body) ? body : {};
  const choices = Array.isArray(root.choices) ? root.choices : [];
  return {
    id: stringOr(root.id, '') || context.generateId('chatcmpl-'),
    model: stringOr(root.model, ''),
    created: typeof root.created === 'number' ? root.created : Math.floor(context.now() / 1000),
    choices: choices.map((choice, position) => decodeChoice(choice, position, context)),
    usage: decodeUsage(root.usage),
  };
}
