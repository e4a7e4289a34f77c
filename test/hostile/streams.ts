/**
 * Streaming requests on each surface written as raw HTTP (any protocol version, through any
 * proxy), and the check that a client received a whole, well-formed stream: the SSE text is read
 * back with the surface family's own stream decoder and must satisfy the canonical
 * well-formedness rule, ending with `message-end` (not an error), with some text.
 */
import type { StreamEvent } from '../../src/ir/index.ts';
import type { SurfaceId } from '../../src/surfaces/surface.ts';
import { checkStreamEvents } from '../../src/ir/check-stream-events.ts';
import { familyCodec, isFamilyId } from '../../src/surfaces/registry.ts';
import { createStreamDecoder as readResponsesStream } from '../../src/surfaces/responses/test-kit.ts';
import { SseParser } from '../../src/sse/parse-sse.ts';

export interface StreamRequest {
  surface: SurfaceId;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A streaming request on `surface` for `model`, authenticated with `key`. */
export function streamRequest(
  surface: SurfaceId,
  model: string,
  key: string,
  prompt = 'Hello there',
): StreamRequest {
  if (surface === 'alpha') {
    return {
      surface,
      path: '/v1/chat/completions',
      headers: { Authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 40,
        messages: [{ role: 'user', content: prompt }],
      }),
    };
  }
  if (surface === 'responses') {
    return {
      surface,
      path: '/v1/responses',
      headers: { Authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, stream: true, max_output_tokens: 40, input: prompt }),
    };
  }
  if (surface === 'beta') {
    return {
      surface,
      path: '/v1/messages',
      headers: { 'x-api-key': key, 'beta-version': '2023-06-01' },
      body: JSON.stringify({
        model,
        stream: true,
        max_tokens: 40,
        messages: [{ role: 'user', content: prompt }],
      }),
    };
  }
  return {
    surface,
    path: `/v1/models/${model}:streamGenerateContent?alt=sse`,
    headers: { 'x-gamma-api-key': key },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { maxOutputTokens: 40 },
    }),
  };
}

/** The request as raw HTTP text in the given protocol version. */
export function rawText(
  request: StreamRequest,
  host: string,
  version: '1.0' | '1.1',
  extra: Record<string, string> = {},
): string {
  const lines = [
    `POST ${request.path} HTTP/${version}`,
    `Host: ${host}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(request.body)}`,
    ...Object.entries({ ...request.headers, ...extra }).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${request.body}`;
}

export interface StreamVerdict {
  problems: string[];
  events: number;
  text: string;
}

/** Decodes `sse` as a client of `surface` would and lists what is wrong with it. */
export function checkClientStream(surface: SurfaceId, sse: string): StreamVerdict {
  let counter = 0;
  const context = { generateId: (prefix: string) => `${prefix}${++counter}`, now: () => 1_700_000_000_000 };
  // A family's stream reads back with its own decoder; the Responses API's with its test reader.
  if (surface !== 'responses' && !isFamilyId(surface)) throw new Error(`no surface ${surface}`);
  const decoder =
    surface === 'responses'
      ? readResponsesStream(context)
      : familyCodec(surface).createStreamDecoder(context);
  const events: StreamEvent[] = [];
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  const parser = new SseParser();
  parser.push(sse, (message) => decoder.push(message, emit));
  parser.end((message) => decoder.push(message, emit));
  decoder.end(emit);
  const problems = checkStreamEvents(events);
  const last = events.at(-1);
  if (last?.type !== 'message-end') problems.push(`the stream ends with ${last?.type ?? 'nothing'}`);
  const text = events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
  if (text.length === 0) problems.push('no text arrived');
  return { problems, events: events.length, text };
}
