/**
 * Family B's count-tokens endpoint, `POST /v1/messages/count_tokens`: the messages body without
 * `max_tokens` in, `{"input_tokens": N}` out. Same-family traffic goes to the upstream's own
 * endpoint with the client's body (model, credential and version header as for messages).
 */
import { invalidRequest, isJsonObject, type JsonObject } from '../../ir/index.ts';
import type { TokenCounting } from '../surface.ts';
import { decodeRequest } from '../../codecs/beta/decode-request.ts';
import { passThrough } from '../../codecs/beta/pass-through.ts';
import { countTokensPath } from '../../codecs/beta/wire.ts';

export const tokenCounting: TokenCounting = {
  decodeRequest(input) {
    // The endpoint takes no output cap: a placeholder satisfies the messages decoder.
    const body =
      isJsonObject(input.body) && input.body.max_tokens === undefined
        ? { ...input.body, max_tokens: 1 }
        : input.body;
    return decodeRequest({ ...input, body });
  },
  encodeResponse: (count) => ({ input_tokens: count.inputTokens }),
  encodeUpstreamRequest(body, request, target, clientHeaders) {
    return {
      ...passThrough.encodeRequest(body, request, target, clientHeaders),
      path: countTokensPath,
      call: { model: target.model, stream: false, operation: 'count-tokens' },
    };
  },
  decodeUpstreamResponse(body) {
    const tokens = isJsonObject(body) ? body.input_tokens : undefined;
    if (typeof tokens !== 'number' || !Number.isSafeInteger(tokens) || tokens < 0)
      throw invalidRequest('the upstream sent a count the gateway cannot read');
    return { inputTokens: tokens, imageTokens: 0 };
  },
};

export type { JsonObject };
