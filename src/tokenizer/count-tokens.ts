/**
 * The one tokenizer: a real BPE (o200k_base via gpt-tokenizer), used by the gateway for context
 * checks and by the simulator for usage. Counting is CPU work, so callers first use `fitsByBytes`:
 * a BPE token is at least one UTF-8 byte, so text whose byte length fits needs no counting at all.
 */
import { countTokens, decode, encode } from 'gpt-tokenizer';

export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text);
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
