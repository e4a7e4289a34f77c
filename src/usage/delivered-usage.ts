/**
 * What a client received of a stream that ended early (client gone, upstream failed), counted
 * from the answer itself. Upstreams report output tokens only at the end of a stream, so an
 * interrupted one would otherwise record none: the SSE text the gateway wrote is decoded with the
 * surface family's own stream decoder and its text and tool arguments are counted with the
 * tokenizer. A lower bound of what the upstream generated (and may bill).
 */
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { decodeContext } from '../gateway/decode-context.ts';
import type { StreamEvent, Usage } from '../ir/index.ts';
import { SseParser } from '../sse/parse-sse.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';

export interface DeliveredStream {
  /** Output tokens in what the client received. */
  outputTokens: number;
  /** The last usage the stream itself carried, if any. */
  usage: Usage | undefined;
}

/**
 * `written`: the stream's first `keptChars` characters; `totalChars`: all it wrote. When only a
 * part was kept, the count of that part is scaled up by length (framing is regular, so the ratio
 * of text to SSE holds).
 */
export function deliveredStream(
  surface: SurfaceCodec,
  written: readonly string[],
  keptChars: number,
  totalChars: number,
): DeliveredStream {
  const parser = new SseParser();
  const decoder = surface.createStreamDecoder(decodeContext);
  const pieces: string[] = [];
  let usage: Usage | undefined;
  const emit = (event: StreamEvent): void => {
    // Thinking is output too: a thought cut short was delivered as far as it went.
    if (event.type === 'text-delta' || event.type === 'reasoning-delta') pieces.push(event.text);
    else if (event.type === 'tool-call-start') pieces.push(event.name);
    else if (event.type === 'tool-call-delta') pieces.push(event.argumentsDelta);
    else if (event.type === 'usage' || event.type === 'message-end') usage = event.usage;
  };
  try {
    for (const text of written) parser.push(text, (message) => decoder.push(message, emit));
    parser.end((message) => decoder.push(message, emit));
  } catch {
    // A cut stream may end mid-message: what was decoded before still counts.
  }
  const counted = countTextTokens(pieces.join(''));
  const outputTokens =
    totalChars > keptChars && keptChars > 0 ? Math.round((counted * totalChars) / keptChars) : counted;
  return { outputTokens, usage };
}
