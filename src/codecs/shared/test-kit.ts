/**
 * Shared by the families' `readAnswer` tests: the whole path a same-family JSON answer takes
 * without it (parse, decode, rewrite: as `gateway/deliver.ts` does), as the oracle it must equal.
 */
import assert from 'node:assert/strict';
import { isJsonObject } from '../../ir/index.ts';
import type { PassedAnswer, ResponseContext, WireCodec } from '../codec.ts';

export const answerContext: ResponseContext = { model: 'A-3', includeUsage: false, legacyFunctions: false };

const decodeContext = { generateId: (prefix: string) => `${prefix}gen`, now: () => 1_731_000_999_000 };

/** What the client and the ledger get from `text` the whole way; undefined when that path refuses it. */
export function wholeAnswer(
  codec: WireCodec,
  text: string,
  context: ResponseContext,
): PassedAnswer | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const decoded = codec.decodeResponse(body, decodeContext);
  if (!isJsonObject(body)) return undefined;
  const passThrough = codec.passThrough;
  const answer =
    passThrough.rewriteResponseText?.(text, body, context) ??
    JSON.stringify(passThrough.rewriteResponse(body, context));
  return {
    text: answer,
    usage: decoded.usage,
    finishReasons: decoded.choices.map((choice) => choice.finishReason.raw ?? choice.finishReason.unified),
  };
}

/** `readAnswer` gives what the whole path gives, or leaves it to it; `fast`: it must take it itself. */
export function assertSameAsWhole(
  codec: WireCodec,
  text: string,
  fast?: boolean,
  context = answerContext,
): void {
  const read = codec.passThrough.readAnswer?.(text, context);
  if (fast !== undefined)
    assert.equal(read !== undefined, fast, `fast path ${String(fast)}: ${text.slice(0, 80)}`);
  if (read !== undefined) assert.deepEqual(read, wholeAnswer(codec, text, context), text.slice(0, 80));
}
