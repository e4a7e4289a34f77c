/**
 * The Bedrock transport: the HTTP transport wrapped with Bedrock's URLs, its authentication, its
 * error statuses and its stream framing. A B request (an Anthropic model) becomes InvokeModel
 * (`/model/{id}/invoke` or `/invoke-with-response-stream`); a Converse request already has its path.
 * The binary event stream of a 2xx streamed answer is re-framed as SSE (`event-stream.ts`).
 */
import type { HeaderMap, UpstreamCall, UpstreamRequest } from '../../codecs/codec.ts';
import { isJsonObject } from '../../ir/index.ts';
import type { UpstreamResponse, UpstreamTransport } from '../../upstream/transport.ts';
import { errorAnswer } from './answers.ts';
import { authorizeRequest, type BedrockAuthorizer } from './auth.ts';
import { countTokens } from './count-tokens.ts';
import { EventStreamToSse, type StreamFraming } from './event-stream.ts';
import { invokeBody, invokeHeaders, invokePath } from './invoke.ts';

/** Creates the re-framer of one stream (the event-stream codec is loaded with the signer). */
export type ReframerFactory = (framing: StreamFraming) => EventStreamToSse;

export interface BedrockTransportParts {
  authorizer: Promise<BedrockAuthorizer>;
  reframer: Promise<ReframerFactory>;
}

const conversePrefix = '/model/';

/** The call, from the codec (`request.call`) or, before every codec sets it, from the request itself. */
function callOf(request: UpstreamRequest): UpstreamCall {
  if (request.call !== undefined) return request.call;
  if (request.path.startsWith(conversePrefix)) {
    const [, , model = '', action = ''] = request.path.split('/');
    return { model: decodeURIComponent(model), stream: action.endsWith('-stream'), operation: 'chat' };
  }
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    body = undefined;
  }
  const fields = isJsonObject(body) ? body : {};
  return {
    model: typeof fields.model === 'string' ? fields.model : '',
    stream: fields.stream === true,
    operation: request.path.endsWith('/count_tokens') ? 'count-tokens' : 'chat',
  };
}

/** The request as Bedrock takes it, before authentication. */
function bedrockRequest(
  request: UpstreamRequest,
  call: UpstreamCall,
): { framing: StreamFraming; path: string; headers: Record<string, string>; body: string } {
  if (request.path.startsWith(conversePrefix)) {
    const { authorization: _authorization, ...headers } = request.headers;
    return { framing: 'converse', path: request.path, headers, body: request.body };
  }
  return {
    framing: 'invoke',
    path: invokePath(call.model, call.stream),
    headers: invokeHeaders(request.headers),
    body: invokeBody(request.body, request.headers['anthropic-beta']),
  };
}

function firstHeader(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function* reframed(
  body: AsyncIterable<Uint8Array | string>,
  reframer: EventStreamToSse,
): AsyncIterable<string> {
  for await (const chunk of body) {
    const text = reframer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (text !== '') yield text;
  }
}

function sseResponse(response: UpstreamResponse, reframer: EventStreamToSse): UpstreamResponse {
  const body = reframed(response.body, reframer);
  return {
    status: response.status,
    headers: { ...response.headers, 'content-type': 'text/event-stream' },
    body,
    text: async () => {
      let text = '';
      for await (const piece of body) text += piece;
      return text;
    },
    cancel: () => {
      response.cancel();
    },
  };
}

export function bedrockTransport(http: UpstreamTransport, parts: BedrockTransportParts): UpstreamTransport {
  /** Models whose count CountTokens refused: counted locally from then on, without a round trip. */
  const unsupported = new Set<string>();
  return {
    async send(baseUrl, request, signal) {
      const call = callOf(request);
      if (call.operation === 'count-tokens')
        return countTokens(http, baseUrl, {
          request,
          call,
          signal,
          authorizer: parts.authorizer,
          unsupported,
        });
      const { framing, path, headers, body } = bedrockRequest(request, call);
      headers.accept = call.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
      const authorized = await authorizeRequest(parts.authorizer, new URL(baseUrl + path), headers, body);
      const response = await http.send(baseUrl, { ...request, path, headers: authorized, body }, signal);
      if (response.status >= 400) return errorAnswer(response, await response.text(), framing);
      const contentType = firstHeader(response.headers, 'content-type') ?? '';
      if (!call.stream || !contentType.includes('vnd.amazon.eventstream')) return response;
      const createReframer = await parts.reframer;
      return sseResponse(response, createReframer(framing));
    },
    close: () => http.close(),
  };
}
