/**
 * The simulator as a standalone HTTP server (`modelgate simulate`): a local stand-in for the three
 * official APIs. Streams are written chunk by chunk as they are generated; a client that hangs up
 * stops the generation.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator, type Simulator, type SimulatorOptions } from './simulator.ts';

export interface SimulatorServerOptions extends SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
}

export interface SimulatorServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  simulator: Simulator;
  close(): Promise<void>;
}

export async function startSimulatorServer(options: SimulatorServerOptions = {}): Promise<SimulatorServer> {
  const host = options.host ?? '127.0.0.1';
  const simulator = createSimulator(options);
  const server = createServer((request, response) => {
    void serve(simulator, request, response);
  });
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    const closed = once(server, 'close');
    server.close();
    // Keep-alive and streaming connections would otherwise hold close() open.
    server.closeAllConnections();
    await closed;
  };
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, simulator, close };
}

async function serve(
  simulator: Simulator,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  try {
    const body = await readBody(request);
    if (request.method === 'GET' && request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    const input = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: request.headers,
      body,
    };
    const answer = await simulator.handle(input, controller.signal);
    response.writeHead(answer.status, answer.headers as OutgoingHttpHeaders);
    if (answer.headers['content-type'] !== 'text/event-stream') {
      // One write for headers and body: the common benchmark case.
      response.end(await answer.text());
      return;
    }
    // Send the headers now: the first token may be a while.
    response.flushHeaders();
    try {
      for await (const chunk of answer.body) {
        if (!response.write(chunk)) await once(response, 'drain', { signal: controller.signal });
      }
    } finally {
      answer.cancel();
    }
    response.end();
  } catch {
    // The client left (nothing to tell it) or the simulator failed mid-way (the stream is cut).
    if (!response.headersSent && !controller.signal.aborted) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        '{"error":{"message":"simulator failure","type":"server_error","param":null,"code":"server_error"}}',
      );
    } else {
      response.destroy();
    }
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
