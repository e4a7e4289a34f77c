/**
 * The loopback HTTP server every strict vendor mock runs on: a free port on 127.0.0.1, request bodies
 * read with a cap (a mock must not be the thing that falls over on a huge body), every request recorded
 * for the test to inspect, and small helpers to answer JSON.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with its query string, as received. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: unknown;
  rawBody: string;
}

export interface MockUpstream {
  /** The base a client is configured with, e.g. http://127.0.0.1:PORT */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** What a vendor handler receives: the request as recorded plus the parsed URL. */
export interface MockRequest extends RecordedRequest {
  url: URL;
  /** Set when the body was present but not valid JSON. */
  invalidJson: boolean;
}

export type MockHandler = (request: MockRequest, response: ServerResponse) => void | Promise<void>;

export type TooLargeAnswer = (response: ServerResponse) => void;

const defaultBodyLimitBytes = 32 * 1024 * 1024;

export async function startMockServer(
  handle: MockHandler,
  options: { port?: number | undefined; bodyLimitBytes?: number; onTooLarge?: TooLargeAnswer } = {},
): Promise<MockUpstream> {
  const requests: RecordedRequest[] = [];
  const limit = options.bodyLimitBytes ?? defaultBodyLimitBytes;
  const server = createServer((request, response) => {
    void readBody(request, limit).then(async (rawBody) => {
      if (rawBody === undefined) {
        if (options.onTooLarge) options.onTooLarge(response);
        else sendJson(response, 413, { error: { message: 'Request body too large' } });
        return;
      }
      const mockRequest = toMockRequest(request, rawBody);
      requests.push({
        method: mockRequest.method,
        path: mockRequest.path,
        headers: mockRequest.headers,
        body: mockRequest.body,
        rawBody,
      });
      try {
        await handle(mockRequest, response);
      } catch (error) {
        // A bug in a mock must show up as a loud 500, never as a hung socket.
        if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
        else response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function toMockRequest(request: IncomingMessage, rawBody: string): MockRequest {
  const path = request.url ?? '/';
  let body: unknown = undefined;
  let invalidJson = false;
  if (rawBody.length > 0) {
    try {
      body = JSON.parse(rawBody);
    } catch {
      invalidJson = true;
    }
  }
  return {
    method: request.method ?? 'GET',
    path,
    headers: request.headers,
    body,
    rawBody,
    invalidJson,
    url: new URL(path, 'http://mock.invalid'),
  };
}

/** Resolves undefined when the body exceeds the cap (the rest is drained, not buffered). */
function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(undefined));
  });
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
