/**
 * The one tokenizer: a real BPE (o200k_base, token for token gpt-tokenizer's, from a compact
 * vocabulary: byte-pair-encoder.ts; ~4.5 MiB resident instead of ~60, bench/README.md), used by the
 * gateway for context checks and rate limits and by the simulator for usage. Text is tokenized in
 * pieces of at most 512 characters cut where the pre-tokenizer ends a match anyway (segments.ts),
 * which keeps the count exact for ordinary text and the work linear for any text (a few µs a
 * character at worst).
 * Callers that can decide from bytes do so first (`fitsByBytes`, `tokenBoundsOfBytes`): a token is
 * one to 128 UTF-8 bytes.
 */
import { countBpeTokens, decodeBpe, encodeBpe } from './byte-pair-encoder.ts';
import { nextCut } from './segments.ts';

// Special-token strings (`<|endoftext|>`) in a prompt are plain text to a gateway: counted as the
// characters they are, never refused (byte-pair-encoder.ts never reads them as special tokens).

/** Loads the vocabulary now (the server does before it listens); else the first count does. */
export { loadTokenizer } from './byte-pair-encoder.ts';

/** The longest o200k token is 128 bytes (128 spaces); the shortest is one byte. */
export const maxTokenBytes = 128;

/**
 * Recently counted texts. System prompts, tool schemas and shared history repeat across requests,
 * and the rate limiter counts every prompt before the call: a bounded map spares the BPE work.
 * Only texts of moderate size are kept, so the memory bound is about 1,000 × 4 KiB.
 */
const memo = new Map<string, number>();
const memoEntries = 1_000;
export const memoMaxLength = 4_096;

export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length > memoMaxLength) return countPieces(text);
  const known = memo.get(text);
  if (known !== undefined) return known;
  const counted = countPieces(text);
  remember(text, counted);
  return counted;
}

/** Looks `text` up in the memo (texts up to `memoMaxLength` characters). */
export function memoized(text: string): number | undefined {
  return memo.get(text);
}

export function remember(text: string, counted: number): void {
  if (text.length > memoMaxLength) return;
  // Oldest first out: a Map iterates in insertion order.
  if (memo.size >= memoEntries) memo.delete(memo.keys().next().value as string);
  memo.set(text, counted);
}

/** The tokens of `text`, piece by piece. */
function countPieces(text: string): number {
  let counted = 0;
  for (let from = 0; from < text.length;) {
    const piece = countNextPiece(text, from);
    counted += piece.tokens;
    from = piece.end;
  }
  return counted;
}

/** One piece of `text` from `start` (see segments.ts): where it ends and its tokens. */
export function countNextPiece(text: string, start: number): { end: number; tokens: number } {
  const end = nextCut(text, start);
  return { end, tokens: countBpeTokens(text.slice(start, end)) };
}

export function encodeText(text: string): number[] {
  const tokens: number[] = [];
  let from = 0;
  while (from < text.length) {
    const cut = nextCut(text, from);
    encodeBpe(text.slice(from, cut), tokens);
    from = cut;
  }
  return tokens;
}

export function decodeTokens(tokens: readonly number[]): string {
  return decodeBpe(tokens);
}

/** True when `text` certainly holds at most `limit` tokens, decided without tokenizing. */
export function fitsByBytes(text: string, limit: number): boolean {
  // UTF-16 length × 3 bounds the UTF-8 byte length from above without encoding.
  return text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit;
}
