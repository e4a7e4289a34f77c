/**
 * Checks a decoded request against the catalog before anything goes upstream: output cap and the
 * model's capabilities, then the context window (prompt-tokens.ts: decided from bytes where they
 * suffice, counted in slices and only as far as the decision needs).
 */
import type { ModelEntry } from '../config/catalog.ts';
import { invalidRequest, type ChatRequest } from '../ir/index.ts';
import { PromptTokens } from '../tokenizer/prompt-tokens.ts';

/**
 * A client cannot know the output limit behind an alias, so a cap above the model's maximum is
 * lowered to it; the returned note goes in the answer's `warning` header. `strict` (config
 * `limits.strictOutputTokens`) keeps the request as is, and `validateAgainstCatalog` refuses it.
 */
export function fitOutputCap(request: ChatRequest, entry: ModelEntry, strict: boolean): string | undefined {
  const asked = request.sampling.maxOutputTokens;
  if (strict || asked === undefined || asked <= entry.maxOutputTokens) return undefined;
  request.sampling.maxOutputTokens = entry.maxOutputTokens;
  return `max output lowered from ${asked} to ${entry.maxOutputTokens}, the most ${entry.name} allows`;
}

/** The checks that need no counting; `checkContextWindow` follows them. */
export function validateAgainstCatalog(request: ChatRequest, entry: ModelEntry): void {
  const requestedOutput = request.sampling.maxOutputTokens;
  if (requestedOutput !== undefined && requestedOutput > entry.maxOutputTokens) {
    throw invalidRequest(
      `max output tokens is ${requestedOutput}, but ${entry.name} allows at most ${entry.maxOutputTokens} output tokens`,
      'max_tokens',
    );
  }
  checkCapabilities(request, entry);
}

/**
 * Where a request keeps its prompt counter: a property only this module knows, not enumerable (a
 * copy of the request, a comparison or a serialisation never sees it). Not a WeakMap: an entry per
 * request cost ~0.8 µs against ~0.15 (an ephemeron table that grows in the old generation until a
 * full collection clears it).
 */
const counterKey = Symbol('prompt tokens');
type Counted = ChatRequest & { readonly [counterKey]?: PromptTokens };

/** The prompt counter of a request, made once (admission and fallbacks reuse its progress). */
export function promptTokensOf(request: ChatRequest): PromptTokens {
  let prompt = (request as Counted)[counterKey];
  if (prompt === undefined) {
    prompt = new PromptTokens(promptTexts(request));
    Object.defineProperty(request, counterKey, { value: prompt });
  }
  return prompt;
}

/** The prompt fits the window whatever it counts (every token is at least one UTF-8 byte). */
export function fitsByBytes(
  request: ChatRequest,
  entry: ModelEntry,
  prompt: PromptTokens = promptTokensOf(request),
): boolean {
  if (!Number.isFinite(entry.contextWindow)) return true;
  return prompt.bounds().upper <= entry.contextWindow - (request.sampling.maxOutputTokens ?? 0);
}

/**
 * Refused only when the prompt certainly exceeds the window. Counting stops at twice the budget
 * (the message then names a lower bound); a prompt beyond the work cap that the bounds cannot
 * decide goes on, and the upstream, which enforces its own window, has the last word.
 */
export async function checkContextWindow(
  request: ChatRequest,
  entry: ModelEntry,
  prompt: PromptTokens = promptTokensOf(request),
): Promise<void> {
  if (!Number.isFinite(entry.contextWindow)) return;
  const requestedOutput = request.sampling.maxOutputTokens ?? 0;
  const budget = entry.contextWindow - requestedOutput;
  let known = prompt.bounds();
  if (known.upper <= budget) return; // every token is at least one UTF-8 byte: fits for sure
  if (known.lower <= budget) known = await prompt.count(Math.max(budget, 0) * 2);
  if (known.lower > budget) {
    const asked = requestedOutput > 0 ? ` and ${requestedOutput} output tokens were requested` : '';
    const size = known.exact ? `${known.tokens} tokens` : `more than ${known.lower - 1} tokens`;
    throw invalidRequest(
      `${entry.name} has a context window of ${entry.contextWindow} tokens, but the prompt has ${size}${asked}`,
      'messages',
    );
  }
}

/** Every piece of prompt text the model would read (images excluded). */
export function promptTexts(request: ChatRequest): string[] {
  const texts: string[] = [];
  for (const part of request.system) texts.push(part.text);
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(part.name, part.arguments);
      else if (part.type === 'tool-result') {
        for (const inner of part.content) if (inner.type === 'text') texts.push(inner.text);
      }
    }
  }
  for (const tool of request.tools)
    texts.push(tool.name, tool.description ?? '', JSON.stringify(tool.parameters));
  return texts;
}

function checkCapabilities(request: ChatRequest, entry: ModelEntry): void {
  if (request.stream && !entry.capabilities.streaming) {
    throw invalidRequest(`${entry.name} does not support streaming`, 'stream');
  }
  if (request.tools.length > 0 && !entry.capabilities.tools) {
    throw invalidRequest(`${entry.name} does not support tool calling`, 'tools');
  }
  if (!entry.capabilities.vision && hasImage(request)) {
    throw invalidRequest(`${entry.name} does not accept image input`, 'messages');
  }
}

function hasImage(request: ChatRequest): boolean {
  return request.messages.some((message) =>
    message.content.some(
      (part) =>
        part.type === 'image' ||
        (part.type === 'tool-result' && part.content.some((inner) => inner.type === 'image')),
    ),
  );
}
