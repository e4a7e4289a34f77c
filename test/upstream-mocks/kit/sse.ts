/**
 * Server-sent events as the vendors frame them: `data: <json>\n\n` (OpenAI chat), preceded by
 * `event: <type>` (OpenAI Responses, Anthropic), or `data:` lines ended by CRLF CRLF (Google).
 */
import type { ServerResponse } from 'node:http';

export interface SseEvent {
  event?: string;
  /** An object is JSON-encoded; a string (e.g. `[DONE]`) is sent as is. */
  data: unknown;
}

export function startSse(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}

export function formatSse(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

/** Writes the events one by one, then ends the stream. */
export async function writeSse(response: ServerResponse, events: SseEvent[]): Promise<void> {
  for (const event of events) {
    if (response.destroyed) return;
    response.write(formatSse(event));
    // Yield between events so they leave as separate TCP writes, as a real stream's do.
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

/** Anthropic's framing: an `event:` line naming the type, then the JSON `data:` line. */
export function writeNamedEvent(response: ServerResponse, event: string, data: unknown): void {
  response.write(formatSse({ event, data }));
}

/** Google's framing: `data:` lines only, each event ended by CRLF CRLF as the Google front end sends them. */
export function writeGoogleDataEvent(response: ServerResponse, data: unknown): void {
  response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
}
