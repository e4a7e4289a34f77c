/** Shared pieces for reading upstream answers. */
import type { DecodeContext } from '../families/codec.ts';
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

/** The whole body as text, read chunk by chunk so the call's timers see every chunk. */
export async function readBodyText(response: UpstreamResponse, timers: CallTimers): Promise<string> {
  let text = '';
  let bytes: Uint8Array[] | undefined;
  for await (const chunk of response.body) {
    timers.chunk();
    if (typeof chunk === 'string') text += chunk;
    else (bytes ??= []).push(chunk);
  }
  if (bytes === undefined) return text;
  return text + Buffer.concat(bytes).toString('utf8');
}
