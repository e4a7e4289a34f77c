/**
 * Memoised token counts. The simulator is the upstream in throughput benchmarks, where the same
 * prompts repeat; BPE counting is the costliest step of a reply, so recent texts are remembered in a
 * small map bounded both by entries and by total characters (long prompts must not pin memory).
 *
 * The simulator runs in the gateway's process by default, so a prompt is counted as the gateway
 * counts it (tokenizer/prompt-tokens.ts): in slices that yield the event loop, and at most
 * `defaultCountLimits.maxChars` characters per request; texts beyond that work cap are estimated
 * at the tokens per byte of what was counted.
 */
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { defaultCountLimits, PromptTokens } from '../tokenizer/prompt-tokens.ts';

export interface TokenCounter {
  count(text: string): number;
}

const maxEntries = 1024;
const maxTotalChars = 4_000_000;

export class TokenCountCache implements TokenCounter {
  readonly #counts = new Map<string, number>();
  #totalChars = 0;

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.#counts.get(text);
    if (known !== undefined) return known;
    const counted = countTextTokens(text);
    this.#remember(text, counted);
    return counted;
  }

  /**
   * Counts `texts` (one request's prompt) without holding the event loop, and returns a counter
   * that knows them; other texts (the reply's own) are counted as `count` does.
   */
  async primed(texts: readonly string[]): Promise<TokenCounter> {
    const known = new Map<string, number>();
    let budget = defaultCountLimits.maxChars;
    let countedTokens = 0;
    let countedBytes = 0;
    for (const text of texts) {
      if (text.length === 0 || known.has(text)) continue;
      const cached = this.#counts.get(text);
      if (cached !== undefined) {
        known.set(text, cached);
        continue;
      }
      if (budget <= 0) {
        // Past the work cap: the tokens per byte of what was counted (4 bytes a token before that).
        const bytes = Buffer.byteLength(text);
        known.set(
          text,
          Math.max(1, Math.round(countedBytes > 0 ? (bytes * countedTokens) / countedBytes : bytes / 4)),
        );
        continue;
      }
      const result = await new PromptTokens([text], { ...defaultCountLimits, maxChars: budget }).count();
      budget -= text.length;
      known.set(text, result.tokens);
      if (result.exact) {
        this.#remember(text, result.tokens);
        countedTokens += result.tokens;
        countedBytes += Buffer.byteLength(text);
      }
    }
    return { count: (text) => known.get(text) ?? this.count(text) };
  }

  #remember(text: string, counted: number): void {
    if (text.length > maxTotalChars / 4) return;
    this.#counts.set(text, counted);
    this.#totalChars += text.length;
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#counts.size > maxEntries || this.#totalChars > maxTotalChars) {
      const oldest = this.#counts.keys().next();
      if (oldest.done === true) break;
      this.#counts.delete(oldest.value);
      this.#totalChars -= oldest.value.length;
    }
  }
}
