/**
 * A provider exercised as the gateway uses it: a codec encodes a canonical request, the provider's
 * transport wraps a real undici transport and sends it to a loopback mock, the codec decodes the
 * answer (JSON, SSE stream, or error body through the shared rules).
 */
import type { ChatRequest, ChatResponse, GatewayError, Message, StreamEvent } from '../ir/index.ts';
import { foldStream } from '../ir/fold-stream.ts';
import type { UpstreamRequest, WireCodec } from '../codecs/codec.ts';
import { builtInCodecs } from '../codecs/registry.ts';
import { readUpstreamError } from '../codecs/shared/upstream-errors.ts';
import { SseParser } from '../sse/parse-sse.ts';
import { createHttpTransport } from '../upstream/http-transport.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import type { Provider } from './provider.ts';

export function codecOf(id: string): WireCodec {
  const codec = builtInCodecs.find((candidate) => candidate.id === id);
  if (codec === undefined) throw new Error(`no codec ${id}`);
  return codec;
}

let ids = 0;
const context = { generateId: (prefix: string) => `${prefix}${++ids}`, now: () => Date.now() };

export function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function chatRequest(
  model: string,
  messages: Message[],
  extra: Partial<ChatRequest> = {},
): ChatRequest {
  return {
    model,
    system: [],
    messages,
    tools: [],
    sampling: { maxOutputTokens: 64 },
    stream: false,
    includeUsage: true,
    extensions: {},
    ...extra,
  };
}

export type CallOutcome =
  | { ok: true; response: ChatResponse; events: StreamEvent[] }
  | { ok: false; status: number; error: GatewayError };

/** One real HTTP transport per test file; close it in `after`. */
export function realHttpTransport(): UpstreamTransport {
  return createHttpTransport({ connectMs: 5_000, connections: 4 });
}

/** Sends an upstream request the way `encodeRequest` (or a pass-through) made it, and decodes what came back. */
export async function sendEncoded(
  provider: Provider,
  transport: UpstreamTransport,
  codec: WireCodec,
  upstream: UpstreamRequest,
  stream: boolean,
): Promise<CallOutcome> {
  const response = await transport.send(provider.baseUrl, upstream, new AbortController().signal);
  if (response.status !== 200) {
    const text = await response.text();
    const reading = readUpstreamError(
      response.status,
      response.headers,
      codec.decodeErrorBody(text),
      Date.now(),
    );
    return { ok: false, status: response.status, error: reading.error };
  }
  if (!stream) {
    const body: unknown = JSON.parse(await response.text());
    return { ok: true, response: codec.decodeResponse(body, context), events: [] };
  }
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent) => events.push(event);
  const decoder = codec.createStreamDecoder(context);
  const parser = new SseParser();
  for await (const chunk of response.body) parser.push(chunk, (message) => decoder.push(message, emit));
  parser.end((message) => decoder.push(message, emit));
  decoder.end(emit);
  return { ok: true, response: foldStream(events), events };
}

/** Encodes `request` with the codec the provider speaks for its model, sends it, decodes the answer. */
export function callProvider(
  provider: Provider,
  transport: UpstreamTransport,
  family: string,
  request: ChatRequest,
): Promise<CallOutcome> {
  const codec = codecOf(provider.wireFor(family, request.model));
  const upstream = codec.encodeRequest(request, {
    baseUrl: provider.baseUrl,
    apiKey: undefined,
    model: request.model,
  });
  return sendEncoded(provider, transport, codec, upstream, request.stream);
}

/** The answer's text, all choices' text parts joined. */
export function answerText(response: ChatResponse): string {
  return response.choices
    .flatMap((choice) => choice.content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
}
