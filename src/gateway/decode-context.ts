/** Shared pieces for reading upstream answers. */
import type { DecodeContext } from '../codecs/codec.ts';
import { GatewayError } from '../ir/index.ts';
import type { CallTimers } from '../upstream/timers.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { generateId } from './ids.ts';

export const decodeContext: DecodeContext = { generateId, now: Date.now };

export function parseUpstreamJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GatewayError('upstream', 'the upstream sent a response that is not valid JSON', {
      cause: error,
    });
  }
}

/**
 * A whole (non-streamed) body as text, with the transport's own `text()` (far cheaper than
 * iterating chunks). The first-byte timer keeps running until the body is complete: a JSON
 * answer comes at once when it is ready, and one that stalls halfway can still be retried.
 */
export async function readBodyText(response: UpstreamResponse, timers: CallTimers): Promise<string> {
  const text = await response.text();
  timers.chunk();
  return text;
}
