/**
 * The one tokenizer: a real BPE (o200k_base via gpt-tokenizer), used by the gateway for context
 * checks and by the simulator for usage. Counting is CPU work, so callers first use `fitsByBytes`:
 * a BPE token is at least one UTF-8 byte, so text whose byte length fits needs no counting at all.
 */
import { countTokens, decode, encode } from 'gpt-tokenizer';

/**
 * Recently counted texts. System prompts, tool schemas and shared history repeat across requests,
 * and the rate limiter counts every prompt before the call: a bounded map spares the BPE work.
 * Only texts of moderate size are kept, so the memory bound is about 1,000 × 4 KiB.
 */
const memo = new Map<string, number>();
const memoEntries = 1_000;
const memoMaxLength = 4_096;

export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length > memoMaxLength) return countTokens(text);
  const known = memo.get(text);
  if (known !== undefined) return known;
  const counted = countTokens(text);
  // Oldest first out: a Map iterates in insertion order.
  if (memo.size >= memoEntries) memo.delete(memo.keys().next().value as string);
  memo.set(text, counted);
  return counted;
}

export function encodeText(text: string): number[] {
  return encode(text);
}

export function decodeTokens(tokens: readonly number[]): string {
  return decode(tokens);
}

/** True when `text` certainly holds at most `limit` tokens, decided without tokenizing. */
export function fitsByBytes(text: string, limit: number): boolean {
  // UTF-16 length × 3 bounds the UTF-8 byte length from above without encoding.
  return text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit;
}
