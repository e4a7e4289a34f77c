/** Shared pieces for reading upstream answers. */
import type { DecodeContext } from '../families/codec.ts';
import { GatewayError } from '../ir/index.ts';
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
