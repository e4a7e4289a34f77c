/** Calls through a Bedrock provider to the strict mock, as the gateway makes them: encode, send, decode. */
import { betaWire } from '../../codecs/beta/index.ts';
import type { WireCodec } from '../../codecs/codec.ts';
import { converseWire } from '../../codecs/converse/index.ts';
import { readUpstreamError } from '../../codecs/shared/upstream-errors.ts';
import type { ChatRequest, ChatResponse, GatewayError, StreamEvent } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import { createHttpTransport } from '../../upstream/http-transport.ts';
import type { Provider } from '../provider.ts';

export const http = createHttpTransport({ connectMs: 2_000, connections: 4 });
const context = { generateId: (prefix: string) => `${prefix}1`, now: () => Date.now() };

export type Outcome =
  | { ok: true; status: number; response: ChatResponse }
  | { ok: true; status: number; events: StreamEvent[] }
  | { ok: false; status: number; error: GatewayError };

export function request(text: string, overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'm',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    sampling: { maxOutputTokens: 256 },
    stream: false,
    includeUsage: true,
    extensions: {},
    ...overrides,
  };
}

export const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** One call: the provider picks the codec for `model`, the transport carries it, the codec reads the answer. */
export async function call(
  provider: Provider,
  model: string,
  chat: ChatRequest,
  headers: Record<string, string> = {},
): Promise<Outcome> {
  const codec: WireCodec = provider.wireFor('any', model) === 'beta' ? betaWire : converseWire;
  const encoded = codec.encodeRequest(chat, { baseUrl: provider.baseUrl, apiKey: undefined, model });
  const upstream = { ...encoded, headers: { ...encoded.headers, ...headers } };
  const response = await provider
    .transport(http)
    .send(provider.baseUrl, upstream, new AbortController().signal);
  if (response.status >= 400) {
    const detail = codec.decodeErrorBody(await response.text());
    return {
      ok: false,
      status: response.status,
      error: readUpstreamError(response.status, response.headers, detail, Date.now()).error,
    };
  }
  if (!chat.stream)
    return {
      ok: true,
      status: response.status,
      response: codec.decodeResponse(JSON.parse(await response.text()), context),
    };
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  const decoder = codec.createStreamDecoder(context);
  const parser = new SseParser();
  for await (const chunk of response.body)
    parser.push(chunk, (message) => {
      decoder.push(message, emit);
    });
  decoder.end(emit);
  return { ok: true, status: response.status, events };
}
