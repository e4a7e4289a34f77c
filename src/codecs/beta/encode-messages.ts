/**
 * IR messages → B `messages`. B wants tool results inside the next user turn, before its other
 * blocks, and rejects empty text blocks, so: empty text is dropped, a tool message and the user
 * message after it become one user turn (tool_result blocks first), same-role turns are merged.
 */
import type { AssistantPart, Message, TextPart, ToolResultPart, UserPart } from '../../ir/index.ts';
import { invalidRequest } from '../../ir/index.ts';
import { parseJsonObject } from '../shared/validate.ts';
import { withWireCacheControl, writeImageBlock, writeTextBlock } from './content-blocks.ts';
import type {
  BetaAssistantBlock,
  BetaImageBlock,
  BetaMessageParam,
  BetaTextBlock,
  BetaToolResultBlock,
  BetaToolUseBlock,
  BetaUserBlock,
} from './wire.ts';

type Turn =
  | { role: 'user'; results: BetaToolResultBlock[]; blocks: BetaUserBlock[] }
  | { role: 'assistant'; blocks: BetaAssistantBlock[] };

export function encodeMessages(messages: readonly Message[]): BetaMessageParam[] {
  const turns: Turn[] = [];
  for (let position = 0; position < messages.length; position++) {
    const turn = encodeTurn(messages[position] as Message, position);
    if (turn.blocks.length === 0 && (turn.role === 'assistant' || turn.results.length === 0)) continue;
    const last = turns.at(-1);
    if (last === undefined || !mergeInto(last, turn)) turns.push(turn);
  }
  checkResultsFollowCalls(turns);
  return turns.map((turn) =>
    turn.role === 'user'
      ? { role: 'user', content: userContent(turn.results, turn.blocks) }
      : { role: 'assistant', content: turn.blocks },
  );
}

/** Tool results first; the turn's own array when there are none (no copy, the common case). */
function userContent(results: BetaToolResultBlock[], blocks: BetaUserBlock[]): BetaUserBlock[] {
  return results.length === 0 ? blocks : [...results, ...blocks];
}

/**
 * B's rule: every `tool_use` is answered by a `tool_result` in the very next (user) turn. History
 * that breaks it (a call whose result the client dropped) is a clear 400 here, not an upstream one.
 * A last assistant turn (a prefill) is left to the upstream.
 */
function checkResultsFollowCalls(turns: readonly Turn[]): void {
  turns.forEach((turn, position) => {
    const next = turns[position + 1];
    if (turn.role !== 'assistant' || next === undefined) return;
    const answered = new Set(next.role === 'user' ? next.results.map((result) => result.tool_use_id) : []);
    for (const block of turn.blocks) {
      if (block.type === 'tool_use' && !answered.has(block.id)) {
        throw invalidRequest(
          `messages: tool call ${block.id} (${block.name}) has no result in the next message; beta models need every tool call answered right after it`,
          'messages',
        );
      }
    }
  });
}

/** Appends `next` to `last` when both have the same role; false when they differ. */
function mergeInto(last: Turn, next: Turn): boolean {
  if (last.role === 'user' && next.role === 'user') {
    last.results.push(...next.results);
    last.blocks.push(...next.blocks);
    return true;
  }
  if (last.role === 'assistant' && next.role === 'assistant') {
    last.blocks.push(...next.blocks);
    return true;
  }
  return false;
}

/** `position`: the message's index, for the path an error names (built only then). */
function encodeTurn(message: Message, position: number): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', results: [], blocks: encodeUserParts(message.content) };
    case 'tool':
      return { role: 'user', results: message.content.map(encodeToolResult), blocks: [] };
    case 'assistant':
      return { role: 'assistant', blocks: encodeAssistantParts(message.content, position) };
  }
}

/** B rejects text blocks that are empty or only whitespace. */
export function isBlankText(part: TextPart): boolean {
  return part.text.trim() === '';
}

function encodeUserParts(parts: readonly UserPart[]): Array<BetaTextBlock | BetaImageBlock> {
  const blocks: Array<BetaTextBlock | BetaImageBlock> = [];
  for (const part of parts) {
    if (part.type === 'image') blocks.push(writeImageBlock(part));
    else if (!isBlankText(part)) blocks.push(writeTextBlock(part));
  }
  return blocks;
}

function encodeAssistantParts(parts: readonly AssistantPart[], message: number): BetaAssistantBlock[] {
  const blocks: BetaAssistantBlock[] = [];
  parts.forEach((part, position) => {
    if (part.type === 'text') {
      if (!isBlankText(part)) blocks.push(writeTextBlock(part));
      return;
    }
    const input = parseJsonObject(part.arguments, `messages.${message}.content.${position}.arguments`);
    const block: BetaToolUseBlock = { type: 'tool_use', id: toolUseId(part.id), name: part.name, input };
    blocks.push(withWireCacheControl(block, part.cacheControl));
  });
  return blocks;
}

function encodeToolResult(part: ToolResultPart): BetaToolResultBlock {
  const block: BetaToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId(part.callId) };
  const content = encodeUserParts(part.content);
  const only = content[0];
  if (content.length === 1 && only?.type === 'text' && only.cache_control === undefined)
    block.content = only.text;
  else if (content.length > 0) block.content = content;
  if (part.isError) block.is_error = true;
  return withWireCacheControl(block, part.cacheControl);
}

const invalidIdCharacters = /[^a-zA-Z0-9_-]/g;

/**
 * B ids must match `^[a-zA-Z0-9_-]+$`; ids from other families may hold `.`, `:` or `|`. The same
 * replacement runs for `tool_use.id` and `tool_result.tool_use_id`, so the pair still matches.
 */
export function toolUseId(id: string): string {
  return id.replace(invalidIdCharacters, '_');
}
