/** AWS event-stream frames as Bedrock writes them (`@smithy/eventstream-codec`, the SDK's own codec). */
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function text(value: string): { type: 'string'; value: string } {
  return { type: 'string', value };
}

export function startEventStream(response: ServerResponse, headers: Record<string, string>): void {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...headers });
}

/** Bedrock pads every event with a `p` field of random length (against traffic analysis). */
export function padding(): string {
  return 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123'.slice(
    0,
    1 + Math.floor(Math.random() * 50),
  );
}

export function eventFrame(eventType: string, payload: object): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': text(eventType),
      ':content-type': text('application/json'),
      ':message-type': text('event'),
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': text(exceptionType),
      ':content-type': text('application/json'),
      ':message-type': text('exception'),
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}
