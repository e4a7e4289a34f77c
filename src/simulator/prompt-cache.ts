/**
 * The simulator's prompt cache, behaving like the real families so cache figures (and the cost
 * header built from them) can be exercised offline:
 * - explicit (B): only prefixes ending at a `cache_control` breakpoint (or the last block, with
 *   top-level automatic caching) are written; a later request reads the longest cached prefix found
 *   at a breakpoint or up to 20 blocks before one; what lies between the read prefix and the last
 *   breakpoint is written. TTL 5 minutes, or 1 hour for `ttl: "1h"`; a hit refreshes it.
 * - implicit (A, C): every prompt of 1024 tokens or more is remembered at each block boundary; a
 *   later prompt reads its longest remembered prefix (A in 128-token steps above 1024). Nothing is
 *   reported as written. TTL 5 minutes.
 * Prefixes shorter than 1024 tokens are never cached (both counts stay 0, as upstream). Entries are
 * keyed by model and prefix hash, bounded in number (oldest evicted first).
 */
import { createHash } from 'node:crypto';
import type { PromptBlock } from './plan.ts';

export interface CacheFigures {
  readTokens: number;
  writeTokens: number;
}

export interface CacheOptions {
  /** B: only marked prefixes are cached; A and C cache implicitly. */
  explicit: boolean;
  /** Implicit reads are reported in steps of this many tokens above the minimum (A: 128). */
  granularity: number;
  /** B top-level `cache_control`: the last block is a breakpoint with this TTL ('' = default). */
  automaticTtl: string | undefined;
}

export const minimumCachedTokens = 1024;
const lookbackBlocks = 20;
const defaultTtlMs = 5 * 60_000;
const longTtlMs = 60 * 60_000;
const defaultMaxEntries = 8192;

interface Entry {
  expiresAt: number;
  ttlMs: number;
}

export class PromptCache {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(now: () => number, maxEntries = defaultMaxEntries) {
    this.#now = now;
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  measure(model: string, blocks: readonly PromptBlock[], options: CacheOptions): CacheFigures {
    const none = { readTokens: 0, writeTokens: 0 };
    if (blocks.length === 0) return none;
    const prefixes = prefixKeys(model, blocks);
    const tokens = cumulativeTokens(blocks);
    return options.explicit
      ? this.#explicit(blocks, prefixes, tokens, options.automaticTtl)
      : this.#implicit(prefixes, tokens, options.granularity);
  }

  #explicit(
    blocks: readonly PromptBlock[],
    prefixes: readonly string[],
    tokens: readonly number[],
    automaticTtl: string | undefined,
  ): CacheFigures {
    const breakpoints: Array<{ at: number; ttlMs: number }> = [];
    blocks.forEach((block, at) => {
      if (block.marker !== undefined) breakpoints.push({ at, ttlMs: ttlOf(block.marker) });
    });
    const last = blocks.length - 1;
    if (automaticTtl !== undefined && breakpoints.at(-1)?.at !== last)
      breakpoints.push({ at: last, ttlMs: ttlOf(automaticTtl) });
    if (breakpoints.length === 0) return { readTokens: 0, writeTokens: 0 };
    // Read: the longest cached prefix at a breakpoint or within the 20 blocks before one.
    let hit = -1;
    for (const { at } of breakpoints) {
      for (let position = at; position >= Math.max(0, at - lookbackBlocks + 1); position--) {
        if (position <= hit) break;
        if ((tokens[position] ?? 0) >= minimumCachedTokens && this.#lookup(prefixes[position] ?? '')) {
          hit = position;
          break;
        }
      }
    }
    const readTokens = hit === -1 ? 0 : (tokens[hit] ?? 0);
    // Write: every breakpoint beyond the hit that is long enough; the span up to the last one.
    let writtenTo = readTokens;
    for (const { at, ttlMs } of breakpoints) {
      const length = tokens[at] ?? 0;
      if (length < minimumCachedTokens || at <= hit) continue;
      this.#store(prefixes[at] ?? '', ttlMs);
      writtenTo = Math.max(writtenTo, length);
    }
    return { readTokens, writeTokens: writtenTo - readTokens };
  }

  #implicit(prefixes: readonly string[], tokens: readonly number[], granularity: number): CacheFigures {
    const total = tokens.at(-1) ?? 0;
    if (total < minimumCachedTokens) return { readTokens: 0, writeTokens: 0 };
    let readTokens = 0;
    for (let position = prefixes.length - 1; position >= 0; position--) {
      const length = tokens[position] ?? 0;
      if (length < minimumCachedTokens) break;
      if (this.#lookup(prefixes[position] ?? '')) {
        const steps = Math.floor((length - minimumCachedTokens) / granularity);
        readTokens = minimumCachedTokens + steps * granularity;
        break;
      }
    }
    for (let position = 0; position < prefixes.length; position++) {
      if ((tokens[position] ?? 0) >= minimumCachedTokens) this.#store(prefixes[position] ?? '', defaultTtlMs);
    }
    return { readTokens, writeTokens: 0 };
  }

  /** A fresh entry is a hit and gets its TTL renewed; an expired one is dropped. */
  #lookup(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) return false;
    entry.expiresAt = this.#now() + entry.ttlMs;
    this.#entries.set(key, entry);
    return true;
  }

  #store(key: string, ttlMs: number): void {
    const existing = this.#entries.get(key);
    this.#entries.delete(key);
    const keep = existing !== undefined && existing.expiresAt > this.#now() ? existing.ttlMs : 0;
    const lifetime = Math.max(ttlMs, keep);
    this.#entries.set(key, { expiresAt: this.#now() + lifetime, ttlMs: lifetime });
    // Map order is insertion order: the first entries are the least recently used.
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && entry.expiresAt > this.#now()) break;
      this.#entries.delete(oldest);
    }
  }
}

function ttlOf(marker: string): number {
  return marker === '1h' ? longTtlMs : defaultTtlMs;
}

function cumulativeTokens(blocks: readonly PromptBlock[]): number[] {
  const out: number[] = [];
  let total = 0;
  for (const block of blocks) {
    total += block.tokens;
    out.push(total);
  }
  return out;
}

/**
 * One key per block boundary: model + every block key so far, hashed incrementally. Native SHA-1
 * (a 15 MB prompt hashes in ~30 ms; the FNV-1a loop it replaces took 440 ms of the event loop).
 */
function prefixKeys(model: string, blocks: readonly PromptBlock[]): string[] {
  const hash = createHash('sha1').update(model);
  const keys: string[] = [];
  for (const block of blocks) {
    hash.update('\u0001').update(block.key);
    keys.push(`${hash.copy().digest('base64url')}.${block.key.length}`);
  }
  return keys;
}
