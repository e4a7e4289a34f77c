/**
 * What the simulated model says, decided once per request and shared by the JSON and the streamed
 * answer (so a stream always folds to the non-streamed reply): per candidate text pieces and/or
 * tool calls, plus the finish reason and usage.
 */
import type { ChatRequest, FinishReason, ImagePart, Message, ToolDefinition, Usage } from '../ir/index.ts';
import { hashString } from './hash.ts';
import { naturalText, toPieces, trimWords, type Piece } from './reply-text.ts';
import { promptedArguments } from './prompted-arguments.ts';
import { sampleArguments } from './schema-sample.ts';
import { structuredText } from './output-options.ts';
import { planThought, type ThoughtPlan } from './thought.ts';
import type { TokenCounter } from './token-cache.ts';

/** One call the simulated model makes. */
export interface ToolCallPlan {
  id: string;
  name: string;
  arguments: string;
  /** The arguments JSON cut into stream fragments. */
  fragments: readonly string[];
}

/** One candidate: text pieces (maybe none), then calls (maybe none), as real models answer. */
export interface ChoicePlan {
  pieces: readonly Piece[];
  calls: readonly ToolCallPlan[];
  outputTokens: number;
  finishReason: FinishReason;
}

export interface ReplyPlan {
  /** What the model thought before answering (shown in the first candidate), when it reasons. */
  thought: ThoughtPlan | undefined;
  choices: ChoicePlan[];
  usage: Usage;
  /** How many token chunks a stream of this reply sends. */
  chunkCount: number;
}

export interface PlanDependencies {
  counter: TokenCounter;
  newToolCallId: () => string;
}

const fragmentChars = 8;
/** Spreads candidate seeds apart (the golden-ratio constant). */
const candidateStride = 0x9e3779b9;

export function planReply(request: ChatRequest, deps: PlanDependencies): ReplyPlan {
  const lastUser = lastUserText(request.messages);
  const seed =
    hashString(seedText(lastUser), hashString(request.model)) ^
    Math.imul(request.messages.length, 0x27d4eb2d);
  const tools = chooseTools(request, lastUser);
  const lead = tools.length === 0 ? replyLead(request.messages, lastUser) : '';
  const count = Math.max(1, request.sampling.candidateCount ?? 1);
  const thought = planThought(request, seed, deps.counter);
  const thinking = thought?.tokens ?? 0;
  const choices: ChoicePlan[] = [];
  for (let index = 0; index < count; index++) {
    choices.push(
      tools.length === 0
        ? planText(request, lead, (seed + Math.imul(index, candidateStride)) >>> 0, deps.counter, thinking)
        : planCalls(request, tools, lastUser, deps),
    );
  }
  // The model thinks once before it answers; thinking tokens are output tokens.
  let outputTokens = thinking;
  let chunkCount = thought?.pieces.length ?? 0;
  for (const choice of choices) {
    outputTokens += choice.outputTokens;
    chunkCount += choice.pieces.length;
    for (const call of choice.calls) chunkCount += call.fragments.length;
  }
  const inputTokens = countInputTokens(request, deps.counter);
  const usage: Usage = { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
  if (request.reasoning !== undefined) usage.reasoningTokens = thinking;
  return { thought, choices, usage, chunkCount };
}

/** The text the seed is hashed from: all of it up to 4 KiB, else its ends and its length (bounded work). */
function seedText(text: string): string {
  return text.length <= 4_096 ? text : `${text.slice(0, 2_048)}${text.slice(-2_048)}${text.length}`;
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

/**
 * Which tools the reply calls, in order. A forced tool is called alone; `required` calls the tools
 * the user named (the first tool when none); `auto` calls the tools the user named unless a tool
 * just answered. Several named tools are parallel calls, in the order the user named them, unless
 * parallel calls are off.
 */
function chooseTools(request: ChatRequest, lastUser: string): ToolDefinition[] {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice?.type === 'none') return [];
  if (toolChoice?.type === 'tool') {
    const forced = tools.find((tool) => tool.name === toolChoice.name);
    return forced === undefined ? [] : [forced];
  }
  const named = mentioned(tools, lastUser);
  const single = request.parallelToolCalls === false || request.legacyFunctions === true;
  const chosen =
    toolChoice?.type === 'required'
      ? named.length > 0
        ? named
        : tools.slice(0, 1)
      : request.messages.at(-1)?.role === 'tool'
        ? []
        : named;
  return single ? chosen.slice(0, 1) : chosen;
}

/** Tools whose name occurs in the text, by first occurrence. */
function mentioned(tools: readonly ToolDefinition[], text: string): ToolDefinition[] {
  const found: Array<{ at: number; tool: ToolDefinition }> = [];
  for (const tool of tools) {
    if (tool.name === '') continue;
    const at = text.indexOf(tool.name);
    if (at !== -1) found.push({ at, tool });
  }
  return found.sort((left, right) => left.at - right.at).map((entry) => entry.tool);
}

/** A text answer (JSON when structured output was asked for), cut by stop sequences and the cap. */
function planText(
  request: ChatRequest,
  lead: string,
  seed: number,
  counter: TokenCounter,
  thinking: number,
): ChoicePlan {
  const format = request.responseFormat;
  const text =
    format === undefined ? naturalText(request.model, lead, seed, counter) : structuredText(format, lead);
  const stop = findStop(text, request.sampling.stopSequences);
  const maxTokens = (request.sampling.maxOutputTokens ?? Number.POSITIVE_INFINITY) - thinking;
  const pieces: Piece[] = [];
  let outputTokens = 0;
  let position = 0;
  for (const piece of toPieces(text)) {
    if (outputTokens + piece.tokens > maxTokens)
      return { pieces, calls: [], outputTokens, finishReason: { unified: 'length' } };
    if (stop !== undefined && position + piece.text.length > stop.at) {
      const head = piece.text.slice(0, stop.at - position);
      if (head !== '') pieces.push({ text: head, tokens: piece.tokens });
      outputTokens += head === '' ? 0 : piece.tokens;
      return {
        pieces,
        calls: [],
        outputTokens,
        finishReason: { unified: 'stop', stopSequence: stop.sequence },
      };
    }
    pieces.push(piece);
    outputTokens += piece.tokens;
    position += piece.text.length;
  }
  return { pieces, calls: [], outputTokens, finishReason: { unified: 'stop' } };
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

/**
 * A tool turn. Unforced (`auto`), the model first says what it is about to do, as real models do;
 * forced (`required` or a named tool), it only calls. Arguments the user spelled out after the
 * tool's name are used as given; otherwise they are sampled from the schema.
 */
function planCalls(
  request: ChatRequest,
  tools: readonly ToolDefinition[],
  lastUser: string,
  deps: PlanDependencies,
): ChoicePlan {
  const forced = request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool';
  const pieces = forced ? [] : toPieces(`Calling ${tools.map((tool) => tool.name).join(' and ')}.`);
  let outputTokens = 0;
  for (const piece of pieces) outputTokens += piece.tokens;
  const calls = tools.map((tool): ToolCallPlan => {
    const args = JSON.stringify(promptedArguments(lastUser, tool.name) ?? sampleArguments(tool.parameters));
    outputTokens += deps.counter.count(tool.name) + deps.counter.count(args);
    return { id: deps.newToolCallId(), name: tool.name, arguments: args, fragments: splitFragments(args) };
  });
  return { pieces, calls, outputTokens, finishReason: { unified: 'tool-calls' } };
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

/** Every prompt token, block by block (the same blocks the prompt cache measures). */
function countInputTokens(request: ChatRequest, counter: TokenCounter): number {
  let total = 0;
  for (const block of promptBlocks(request, counter)) total += block.tokens;
  return total;
}

/** One cacheable piece of the prompt, in the order families cache them: tools, system, messages. */
export interface PromptBlock {
  /** What identifies the block's content (markers excluded: they do not change the prefix). */
  key: string;
  tokens: number;
  /** The block carries a B `cache_control` marker (its TTL; '' for the default). */
  marker: string | undefined;
}

/** The prompt as cacheable blocks. Images count no tokens here but are part of the prefix. */
export function promptBlocks(request: ChatRequest, counter: TokenCounter): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (key: string, tokens: number, cacheControl: { ttl?: string } | undefined): void => {
    blocks.push({ key, tokens, marker: cacheControl === undefined ? undefined : (cacheControl.ttl ?? '') });
  };
  for (const tool of request.tools) {
    const { cacheControl, ...definition } = tool;
    const text = JSON.stringify(definition);
    add(`tool:${text}`, counter.count(text), cacheControl);
  }
  for (const part of request.system) add(`system:${part.text}`, counter.count(part.text), part.cacheControl);
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text')
        add(`${message.role}:${part.text}`, counter.count(part.text), part.cacheControl);
      else if (part.type === 'image') add(`image:${imageKey(part)}`, 0, part.cacheControl);
      else if (part.type === 'tool-call') {
        const tokens = counter.count(part.name) + counter.count(part.arguments);
        add(`call:${part.id}:${part.name}:${part.arguments}`, tokens, part.cacheControl);
      } else {
        let tokens = 0;
        let key = `result:${part.callId}:${String(part.isError)}`;
        for (const inner of part.content) {
          if (inner.type === 'text') {
            tokens += counter.count(inner.text);
            key += `:text:${inner.text}`;
          } else key += `:image:${imageKey(inner)}`;
        }
        // A marker inside a result's content marks the result as a whole here.
        const marker = part.cacheControl ?? part.content.find((inner) => inner.cacheControl)?.cacheControl;
        add(key, tokens, marker);
      }
    }
  }
  return blocks;
}

function imageKey(part: ImagePart): string {
  const source = part.source;
  return source.kind === 'base64' ? `${source.mediaType}:${source.data}` : source.url;
}
