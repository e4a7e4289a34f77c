/**
 * Deterministic stand-ins for what a model service does and measures: token counts (the mock is
 * not a tokenizer), the echo reply, tool choice, ids, and prompt caches (a prefix seen before is a
 * read; OpenAI's automatic caching reported in 128-token blocks above 1024 tokens).
 */
import { createHash, randomBytes } from 'node:crypto';

/** Not a tokenizer: a stable count a test can predict (ceil(chars / 4), at least 1). */
export function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function echoReply(vendor: string, lastUserText: string, sawImage: boolean): string {
  const image = sawImage ? ' (with image)' : '';
  return `mock ${vendor} reply to: ${lastUserText.slice(0, 40)}${image}`;
}

/** `call <tool>` in the user's text picks a tool among those offered. */
export function requestedToolName(lastUserText: string, offered: readonly string[]): string | undefined {
  const match = /\bcall (\S+)/.exec(lastUserText);
  return match && offered.includes(match[1] ?? '') ? match[1] : undefined;
}

/** Arguments built from a JSON schema: every required string property becomes "x". */
export function argumentsFromSchema(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return {};
  const { required, properties } = schema as {
    required?: unknown;
    properties?: Record<string, { type?: unknown }>;
  };
  const args: Record<string, unknown> = {};
  if (!Array.isArray(required)) return args;
  for (const name of required) {
    const type = properties?.[String(name)]?.type;
    if (typeof type === 'string' && type.toLowerCase() === 'string') args[String(name)] = 'x';
  }
  return args;
}

/** Splits a string in `parts` nearly equal pieces (at least two when it has two characters). */
export function splitInPieces(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

export function randomId(prefix: string, length = 24): string {
  return prefix + randomBytes(length).toString('base64url').slice(0, length);
}

export function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * Prompt-cache bookkeeping shared by the vendors: a prefix seen before is a read, a new one a write.
 */
export class PrefixCache {
  readonly #seen = new Set<string>();
  /** Returns 'read' when this exact prefix was stored before, else stores it and returns 'write'. */
  touch(prefix: unknown): 'read' | 'write' {
    const key = digest(prefix);
    if (this.#seen.has(key)) return 'read';
    this.#seen.add(key);
    return 'write';
  }
  has(prefix: unknown): boolean {
    return this.#seen.has(digest(prefix));
  }
}

/** An id that is stable for the same seed, shaped like the vendor's (`chatcmpl-…`, `call_…`). */
export function mockId(prefix: string, seed: string, length = 24): string {
  const hash = createHash('sha256').update(seed).digest('base64url').replace(/[-_]/g, 'x');
  return `${prefix}${hash.slice(0, length)}`;
}

/** OpenAI's automatic prompt caching: a prefix of at least 1024 tokens seen before, in 128-token blocks. */
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
