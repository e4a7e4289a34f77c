/**
 * What the simulated model says, decided once per request and shared by the JSON and the streamed
 * answer (so a stream always folds to the non-streamed reply): per candidate either text pieces or
 * one tool call, plus the finish reason and usage.
 */
import type { ChatRequest, FinishReason, Message, ToolDefinition, Usage } from '../ir/index.ts';
import { hashString } from './hash.ts';
import { naturalText, toPieces, trimWords, type Piece } from './reply-text.ts';
import { sampleArguments } from './schema-sample.ts';
import type { TokenCountCache } from './token-cache.ts';

export interface TextPlan {
  kind: 'text';
  pieces: readonly Piece[];
  outputTokens: number;
  finishReason: FinishReason;
}

export interface ToolPlan {
  kind: 'tool';
  id: string;
  name: string;
  arguments: string;
  /** The arguments JSON cut into stream fragments. */
  fragments: readonly string[];
  outputTokens: number;
  finishReason: FinishReason;
}

export type ChoicePlan = TextPlan | ToolPlan;

export interface ReplyPlan {
  choices: ChoicePlan[];
  usage: Usage;
  /** How many token chunks a stream of this reply sends. */
  chunkCount: number;
}

export interface PlanDependencies {
  counter: TokenCountCache;
  newToolCallId: () => string;
}

const fragmentChars = 8;
/** Spreads candidate seeds apart (the golden-ratio constant). */
const candidateStride = 0x9e3779b9;

export function planReply(request: ChatRequest, deps: PlanDependencies): ReplyPlan {
  const lastUser = lastUserText(request.messages);
  const seed =
    hashString(lastUser, hashString(request.model)) ^ Math.imul(request.messages.length, 0x27d4eb2d);
  const tool = chooseTool(request, lastUser);
  const lead = tool === undefined ? replyLead(request.messages, lastUser) : '';
  const count = Math.max(1, request.sampling.candidateCount ?? 1);
  const choices: ChoicePlan[] = [];
  for (let index = 0; index < count; index++) {
    choices.push(
      tool === undefined
        ? planText(request, lead, (seed + Math.imul(index, candidateStride)) >>> 0, deps.counter)
        : planTool(tool, deps),
    );
  }
  let outputTokens = 0;
  let chunkCount = 0;
  for (const choice of choices) {
    outputTokens += choice.outputTokens;
    chunkCount += choice.kind === 'text' ? choice.pieces.length : choice.fragments.length;
  }
  const inputTokens = countInputTokens(request, deps.counter);
  return {
    choices,
    usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
    chunkCount,
  };
}

function lastUserText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    let text = '';
    for (const part of message.content)
      if (part.type === 'text') text += text === '' ? part.text : ` ${part.text}`;
    return text;
  }
  return '';
}

/** After tool results the reply talks about them; otherwise it echoes the user. */
function replyLead(messages: readonly Message[], lastUser: string): string {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return trimWords(lastUser);
  const results = last.content.map((result) => {
    let text = '';
    for (const part of result.content) if (part.type === 'text') text += part.text;
    return `the tool ${result.name} returned ${text}`;
  });
  return trimWords(results.join('; '));
}

/** A forced choice always calls; `auto` calls a tool the user named, unless a tool just answered. */
function chooseTool(request: ChatRequest, lastUser: string): ToolDefinition | undefined {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice?.type === 'none') return undefined;
  if (toolChoice?.type === 'tool') return tools.find((tool) => tool.name === toolChoice.name);
  const mentioned = tools.find((tool) => tool.name !== '' && lastUser.includes(tool.name));
  if (toolChoice?.type === 'required') return mentioned ?? tools[0];
  return request.messages.at(-1)?.role === 'tool' ? undefined : mentioned;
}

function planText(request: ChatRequest, lead: string, seed: number, counter: TokenCountCache): TextPlan {
  const text = naturalText(request.model, lead, seed, counter);
  const stop = findStop(text, request.sampling.stopSequences);
  const maxTokens = request.sampling.maxOutputTokens ?? Number.POSITIVE_INFINITY;
  const pieces: Piece[] = [];
  let outputTokens = 0;
  let position = 0;
  for (const piece of toPieces(text)) {
    if (outputTokens + piece.tokens > maxTokens)
      return { kind: 'text', pieces, outputTokens, finishReason: { unified: 'length' } };
    if (stop !== undefined && position + piece.text.length > stop.at) {
      const head = piece.text.slice(0, stop.at - position);
      if (head !== '') pieces.push({ text: head, tokens: piece.tokens });
      outputTokens += head === '' ? 0 : piece.tokens;
      return {
        kind: 'text',
        pieces,
        outputTokens,
        finishReason: { unified: 'stop', stopSequence: stop.sequence },
      };
    }
    pieces.push(piece);
    outputTokens += piece.tokens;
    position += piece.text.length;
  }
  return { kind: 'text', pieces, outputTokens, finishReason: { unified: 'stop' } };
}

/** The earliest match of any stop sequence (the first listed wins a tie). */
function findStop(
  text: string,
  sequences: readonly string[] | undefined,
): { at: number; sequence: string } | undefined {
  let found: { at: number; sequence: string } | undefined;
  for (const sequence of sequences ?? []) {
    if (sequence === '') continue;
    const at = text.indexOf(sequence);
    if (at !== -1 && (found === undefined || at < found.at)) found = { at, sequence };
  }
  return found;
}

function planTool(tool: ToolDefinition, deps: PlanDependencies): ToolPlan {
  const args = JSON.stringify(sampleArguments(tool.parameters));
  const fragments = splitFragments(args);
  const outputTokens = deps.counter.count(tool.name) + deps.counter.count(args);
  return {
    kind: 'tool',
    id: deps.newToolCallId(),
    name: tool.name,
    arguments: args,
    fragments,
    outputTokens,
    finishReason: { unified: 'tool-calls' },
  };
}

/** ~8-character fragments, never splitting a surrogate pair. */
export function splitFragments(text: string): string[] {
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + fragmentChars);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

function countInputTokens(request: ChatRequest, counter: TokenCountCache): number {
  let total = 0;
  for (const part of request.system) total += counter.count(part.text);
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text') total += counter.count(part.text);
      else if (part.type === 'tool-call') total += counter.count(part.name) + counter.count(part.arguments);
      else if (part.type === 'tool-result') {
        for (const inner of part.content) if (inner.type === 'text') total += counter.count(inner.text);
      }
    }
  }
  if (request.tools.length > 0) total += counter.count(JSON.stringify(request.tools));
  return total;
}
