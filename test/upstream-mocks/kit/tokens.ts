/**
 * Deterministic stand-ins for what a real model service measures: a token count (ceil(chars/4); the
 * mock is not a tokenizer), ids, and a prompt-prefix cache that reports cached tokens the way
 * OpenAI's automatic prompt caching does (≥ 1024-token prefix seen before, counted in 128-token blocks).
 */
import { createHash } from 'node:crypto';

export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** An id that is stable for the same seed, shaped like the vendor's (`chatcmpl-…`, `call_…`). */
export function mockId(prefix: string, seed: string, length = 24): string {
  const digest = createHash('sha256').update(seed).digest('base64url').replace(/[-_]/g, 'x');
  return `${prefix}${digest.slice(0, length)}`;
}

export class PromptPrefixCache {
  readonly #seen: string[] = [];
  readonly #minimumTokens: number;
  readonly #blockTokens: number;

  constructor(minimumTokens = 1024, blockTokens = 128) {
    this.#minimumTokens = minimumTokens;
    this.#blockTokens = blockTokens;
  }

  /** Tokens of `prompt` served from cache, then remembers `prompt` for later requests. */
  lookupAndStore(prompt: string): number {
    let longest = 0;
    for (const earlier of this.#seen) longest = Math.max(longest, commonPrefixLength(earlier, prompt));
    this.#seen.push(prompt);
    const tokens = Math.floor(longest / 4);
    if (tokens < this.#minimumTokens) return 0;
    return Math.floor(tokens / this.#blockTokens) * this.#blockTokens;
  }
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** Reads `x-mock-fail: <status>`: the failure a gateway test asks the mock to inject. */
export function requestedFailure(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const status = Number(header);
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}
