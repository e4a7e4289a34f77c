/** Server-sent events as the vendors frame them. */
import type { ServerResponse } from 'node:http';

export function startEventStream(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}

/** Anthropic's framing: an `event:` line naming the type, then the JSON `data:` line. */
export function writeNamedEvent(response: ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Google's framing: `data:` lines only, each event ended by CRLF CRLF as the Google front end sends them. */
export function writeGoogleDataEvent(response: ServerResponse, data: unknown): void {
  response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
}
