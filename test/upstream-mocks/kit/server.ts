/**
 * The loopback HTTP server every strict vendor mock runs on: 127.0.0.1 (a free port unless one is
 * asked for), bodies read with a cap (a mock must not be the thing that falls over on a huge
 * body), every request recorded (method, path with query, headers, parsed body) so a test can
 * assert what a client really sent, and small helpers to answer JSON and read what was sent.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with its query string, as received. */
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, a form's fields when form-encoded, else the raw text. */
  body: unknown;
  rawBody: string;
}

export interface MockUpstream {
  /** The base a client is configured with, e.g. http://127.0.0.1:PORT */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** What a handler gets: the recorded request plus the URL parsed once. */
export interface MockRequest extends RecordedRequest {
  url: URL;
  /** Set when the body claimed to be JSON and was not: the vendor's own parse error is the handler's to shape. */
  jsonError?: string;
}

export type MockHandler = (request: MockRequest, response: ServerResponse) => void | Promise<void>;

/** Larger than any vendor's request limit a test would reach, small enough that a runaway client cannot exhaust memory. */
const bodyCapBytes = 32 * 1024 * 1024;

function flattenHeaders(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(message: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > bodyCapBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(rawBody: string, contentType: string): { body: unknown; jsonError?: string } {
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return { body: Object.fromEntries(new URLSearchParams(rawBody)) };
  }
  if (rawBody === '') return { body: undefined };
  try {
    return { body: JSON.parse(rawBody) as unknown };
  } catch (error) {
    return { body: rawBody, jsonError: error instanceof Error ? error.message : String(error) };
  }
}

export interface MockServerOptions {
  /** A fixed port (a mock run by hand); a free one when absent or 0. */
  port?: number | undefined;
  /** Serve HTTPS with this certificate (a vendor library that refuses plain HTTP): `loopback-certificate.ts`. */
  tls?: { key: string; cert: string } | undefined;
}

export async function startMockServer(
  handler: MockHandler,
  options: MockServerOptions = {},
): Promise<MockUpstream> {
  const requests: RecordedRequest[] = [];
  const listener: RequestListener = (message, response) => {
    void (async () => {
      const rawBody = await readBody(message);
      if (rawBody === undefined) {
        response.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large');
        return;
      }
      const headers = flattenHeaders(message);
      const path = message.url ?? '/';
      const parsed = parseBody(rawBody, headers['content-type'] ?? '');
      const recorded: RecordedRequest = {
        method: message.method ?? 'GET',
        path,
        headers,
        body: parsed.body,
        rawBody,
      };
      requests.push(recorded);
      const request: MockRequest = { ...recorded, url: new URL(path, 'http://127.0.0.1') };
      if (parsed.jsonError !== undefined) request.jsonError = parsed.jsonError;
      await handler(request, response);
    })().catch((error: unknown) => {
      // A mock bug must surface in the test as a 500 with its cause, never as a hung socket.
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`mock failure: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
  const server = options.tls === undefined ? createServer(listener) : createTlsServer(options.tls, listener);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** `x-mock-fail: <status>`: the failure a gateway test asks the mock to inject (a 4xx/5xx number, else none). */
export function requestedFailure(headers: Record<string, string>): number | undefined {
  const status = Number(headers['x-mock-fail']);
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}

export function headerValue(headers: Record<string, string>, name: string): string | undefined {
  return headers[name];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
