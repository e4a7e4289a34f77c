/**
 * Memoised token counts. The simulator is the upstream in throughput benchmarks, where the same
 * prompts repeat; BPE counting is the costliest step of a reply, so recent texts are remembered in a
 * small map bounded both by entries and by total characters (long prompts must not pin memory).
 */
import { countTextTokens } from '../tokenizer/count-tokens.ts';

const maxEntries = 1024;
const maxTotalChars = 4_000_000;

export class TokenCountCache {
  readonly #counts = new Map<string, number>();
  #totalChars = 0;

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.#counts.get(text);
    if (known !== undefined) return known;
    const counted = countTextTokens(text);
    if (text.length <= maxTotalChars / 4) this.#remember(text, counted);
    return counted;
  }

  #remember(text: string, counted: number): void {
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
