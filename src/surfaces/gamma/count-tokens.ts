/**
 * Family C's count-tokens method, `POST /v1[beta]/models/{m}:countTokens`: `{contents}` or
 * `{generateContentRequest: {model, contents, systemInstruction, tools, …}}` in,
 * `{"totalTokens": N, "promptTokensDetails": [{modality, tokenCount}]}` out (what the family's SDK
 * reads). Same-family traffic goes to the upstream's own method with the client's body.
 */
import { invalidRequest, isJsonObject, type JsonObject } from '../../ir/index.ts';
import type { TokenCounting } from '../surface.ts';
import { decodeRequest } from '../../codecs/gamma/decode-request.ts';
import { upstreamHeaders } from '../../codecs/gamma/encode-request.ts';

/** The full request form's field, in the spelling the client used (the API takes both). */
function fullRequestKey(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  if (body.generateContentRequest !== undefined && body.generate_content_request !== undefined)
    throw invalidRequest(
      'generateContentRequest: given twice, as "generateContentRequest" and "generate_content_request" (one field, two spellings: send one)',
      'generateContentRequest',
    );
  if (isJsonObject(body.generateContentRequest)) return 'generateContentRequest';
  return isJsonObject(body.generate_content_request) ? 'generate_content_request' : undefined;
}

/** The full request form names its model as `models/{id}`: it follows the path's. */
function upstreamBody(body: JsonObject, model: string): JsonObject {
  const key = fullRequestKey(body);
  const inner = key === undefined ? undefined : body[key];
  return key !== undefined && isJsonObject(inner)
    ? { ...body, [key]: { ...inner, model: `models/${model}` } }
    : body;
}

function modalityTokens(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let tokens = 0;
  for (const detail of details)
    if (isJsonObject(detail) && detail.modality === modality && typeof detail.tokenCount === 'number')
      tokens += detail.tokenCount;
  return tokens;
}

export const tokenCounting: TokenCounting = {
  decodeRequest(input) {
    const body = input.body;
    const key = fullRequestKey(body);
    const inner = key !== undefined && isJsonObject(body) ? body[key] : undefined;
    return decodeRequest({ ...input, body: inner ?? body });
  },
  encodeResponse(count) {
    const text = count.inputTokens - count.imageTokens;
    const details = [{ modality: 'TEXT', tokenCount: text }];
    if (count.imageTokens > 0) details.push({ modality: 'IMAGE', tokenCount: count.imageTokens });
    return { totalTokens: count.inputTokens, promptTokensDetails: details };
  },
  encodeUpstreamRequest(body, _request, target) {
    return {
      path: `/v1/models/${encodeURIComponent(target.model)}:countTokens`,
      headers: upstreamHeaders(target),
      body: JSON.stringify(upstreamBody(body, target.model)),
      warnings: [],
      call: { model: target.model, stream: false, operation: 'count-tokens' },
    };
  },
  decodeUpstreamResponse(body) {
    if (!isJsonObject(body)) throw invalidRequest('the upstream sent a count the gateway cannot read');
    // proto3 JSON leaves out zero values.
    const total = body.totalTokens ?? 0;
    if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0)
      throw invalidRequest('the upstream sent a count the gateway cannot read');
    return { inputTokens: total, imageTokens: modalityTokens(body.promptTokensDetails, 'IMAGE') };
  },
};
