/**
 * Server-sent events as the vendors frame them: `data: <json>\n\n` (OpenAI chat), optionally preceded by
 * `event: <type>` (OpenAI Responses, Anthropic). Each event is its own write so a client sees them
 * arrive one by one, as from the real service.
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

export async function writeSse(response: ServerResponse, events: SseEvent[]): Promise<void> {
  for (const event of events) {
    if (response.destroyed) return;
    response.write(formatSse(event));
    // Yield between events so they leave as separate TCP writes, as a real stream's do.
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}
