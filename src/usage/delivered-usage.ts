/**
 * What a client received of a stream that ended early (client gone, upstream failed), counted
 * from the answer itself. Upstreams report output tokens only at the end of a stream, so an
 * interrupted one would otherwise record none: the delivery keeps the text the client was sent
 * (`Delivery.deliveredText`, canonical: content, tool names and arguments), counted here with the
 * tokenizer. A lower bound of what the upstream generated (and may bill).
 */
import type { DeliveredText } from '../gateway/delivery.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';

/** Output tokens in what the client received: the kept text counted, scaled to the whole by length. */
export function deliveredOutputTokens(delivered: DeliveredText): number {
  const counted = countTextTokens(delivered.text);
  return delivered.scale === 1 ? counted : Math.round(counted * delivered.scale);
}
