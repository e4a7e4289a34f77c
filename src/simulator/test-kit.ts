/**
 * Helpers for the simulator's tests: requests are built the way the gateway builds them (a
 * canonical request through the family's upstream encoder) and answers are read back with the
 * family's own upstream decoders.
 */
import type { DecodeContext, HeaderMap } from '../codecs/codec.ts';
import type { ChatRequest, ChatResponse, FamilyId, StreamEvent } from '../ir/index.ts';
import { SseParser } from '../sse/parse-sse.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { createSimulator, type Simulator, type SimulatorInput, type SimulatorOptions } from './simulator.ts';
import { familyCodec } from '../surfaces/registry.ts';

export const fixedIds = {
  now: (): number => 1_700_000_000_000,
  generateId: (prefix: string): string => `${prefix}sim1`,
};

export const decodeContext: DecodeContext = { now: fixedIds.now, generateId: (prefix) => `${prefix}dec1` };

export function testSimulator(options: SimulatorOptions = {}): Simulator {
  return createSimulator({ ...fixedIds, ...options });
}

export function chatRequest(
  overrides: Partial<ChatRequest> = {},
  text = 'What is the weather in Paris?',
): ChatRequest {
  return {
    model: 'sim-model',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    sampling: { maxOutputTokens: 200 },
    stream: false,
    includeUsage: true,
    extensions: {},
    ...overrides,
  };
}

/** The exact call the gateway would make to a `family` upstream for `request`. */
export function upstreamInput(
  family: FamilyId,
  request: ChatRequest,
  extraHeaders: Record<string, string> = {},
): SimulatorInput {
  const call = familyCodec(family).encodeRequest(request, {
    baseUrl: 'http://simulator',
    apiKey: 'test-key',
    model: request.model,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...call.headers, ...extraHeaders }))
    headers[name.toLowerCase()] = value;
  return { method: 'POST', path: call.path, headers, body: call.body };
}

export async function collect(response: UpstreamResponse): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of response.body)
    chunks.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
  return chunks;
}

/** SSE text → canonical events via the family's stream decoder (including its `end()`). */
export function decodeStream(family: FamilyId, chunks: readonly string[]): StreamEvent[] {
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  const decoder = familyCodec(family).createStreamDecoder(decodeContext);
  const parser = new SseParser();
  for (const chunk of chunks) parser.push(chunk, (message) => decoder.push(message, emit));
  parser.end((message) => decoder.push(message, emit));
  decoder.end(emit);
  return events;
}

export function decodeJson(family: FamilyId, text: string): ChatResponse {
  return familyCodec(family).decodeResponse(JSON.parse(text), decodeContext);
}

export function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
