/**
 * What the simulated model thinks before it answers, when the request asks it to reason: a
 * seeded text of exactly the thinking tokens usage reports (`reasoningTokens` decides how many),
 * streamed piece by piece like the answer, with a signature derived from the text (B's
 * `signature`, C's `thoughtSignature`: opaque to clients, the same for the same thought).
 */
import { createHash } from 'node:crypto';
import type { ChatRequest } from '../ir/index.ts';
import { createRandom } from './hash.ts';
import { reasoningTokens } from './output-options.ts';
import { fillerWords, toPieces, type Piece } from './reply-text.ts';
import type { TokenCounter } from './token-cache.ts';

export interface ThoughtPlan {
  pieces: readonly Piece[];
  /** The tokens of the thought's text: usage's thinking tokens. */
  tokens: number;
  signature: string;
}

const opening = 'Thinking it through:';

/** The thought for this request (seeded like its answer), or undefined when it does not reason. */
export function planThought(
  request: ChatRequest,
  seed: number,
  counter: TokenCounter,
): ThoughtPlan | undefined {
  const target = reasoningTokens(request);
  if (target <= 0) return undefined;
  const random = createRandom(seed ^ 0x5bd1e995);
  // Each filler word is one token with its leading space: enough words for the target, then the
  // pieces are taken up to it, so the text holds exactly `target` tokens whatever the words.
  let draft = opening;
  for (let words = counter.count(opening); words < target; words++)
    draft += ` ${fillerWords[random() % fillerWords.length] ?? 'word'}`;
  const pieces: Piece[] = [];
  let tokens = 0;
  for (const piece of toPieces(draft)) {
    if (tokens + piece.tokens > target) break;
    pieces.push(piece);
    tokens += piece.tokens;
  }
  const text = pieces.map((piece) => piece.text).join('');
  return { pieces, tokens: counter.count(text), signature: signatureOf(text) };
}

function signatureOf(text: string): string {
  return createHash('sha256').update(`modelgate-simulator:${text}`).digest('base64');
}
