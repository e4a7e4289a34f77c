/** `UpstreamResponse` objects for a whole JSON body or a generated stream. */
import type { HeaderMap } from '../codecs/codec.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';

export function wholeResponse(status: number, headers: HeaderMap, text: string): UpstreamResponse {
  let consumed = false;
  return {
    status,
    headers,
    body: {
      [Symbol.asyncIterator]: () => oneChunk(consumed ? undefined : text, () => (consumed = true)),
    },
    text: () => {
      consumed = true;
      return Promise.resolve(text);
    },
    cancel: () => {
      consumed = true;
    },
  };
}

/** An iterator over at most one chunk (none when the body was already consumed). */
function oneChunk(text: string | undefined, markConsumed: () => void): AsyncIterator<string> {
  let done = text === undefined;
  return {
    next: () => {
      if (done || text === undefined) return Promise.resolve({ done: true, value: undefined });
      done = true;
      markConsumed();
      return Promise.resolve({ done: false, value: text });
    },
    return: () => {
      done = true;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
}

/**
 * A streamed body. `cancel()` aborts generation (via `stop`) and closes the generator so its
 * bookkeeping runs even if the consumer never iterates again.
 */
export function streamedResponse(
  status: number,
  headers: HeaderMap,
  chunks: AsyncGenerator<string>,
  stop: () => void,
): UpstreamResponse {
  return {
    status,
    headers,
    body: chunks,
    text: async () => {
      let text = '';
      for await (const chunk of chunks) text += chunk;
      return text;
    },
    cancel: () => {
      stop();
      chunks.return(undefined).catch(() => undefined);
    },
  };
}
