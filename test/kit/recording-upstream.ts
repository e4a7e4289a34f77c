/**
 * A fake upstream on a free port that records every request (method, path, headers, body) and
 * answers from a script: by default it forwards to the built-in simulator, so answers are real
 * family shapes; a test can override the answer per request.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator } from '../../src/simulator/simulator.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A string body, or SSE chunks written with a tick between them. */
  body: string | string[];
}

export interface RecordingUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Answer the next request(s) with this instead of the simulator. */
  script: ScriptedAnswer[];
  close(): Promise<void>;
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const simulator = createSimulator({ timeToFirstTokenMs: 0, interTokenDelayMs: 0 });
  const requests: RecordedRequest[] = [];
  const script: ScriptedAnswer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = undefined;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
        json,
      });
      void answer(request.url ?? '', request.headers, body, response);
    });
  });
  const answer = async (
    path: string,
    headers: IncomingHttpHeaders,
    body: string,
    response: import('node:http').ServerResponse,
  ): Promise<void> => {
    const scripted = script.shift();
    if (scripted !== undefined) {
      response.writeHead(scripted.status, {
        'content-type': Array.isArray(scripted.body) ? 'text/event-stream' : 'application/json',
        ...scripted.headers,
      });
      if (typeof scripted.body === 'string') {
        response.end(scripted.body);
        return;
      }
      for (const chunk of scripted.body) {
        response.write(chunk);
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
      return;
    }
    const controller = new AbortController();
    response.once('close', () => controller.abort());
    const reply = await simulator.handle({ method: 'POST', path, headers, body }, controller.signal);
    const outgoing: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.headers))
      if (typeof value === 'string') outgoing[name] = value;
    response.writeHead(reply.status, outgoing);
    for await (const chunk of reply.body) response.write(chunk);
    response.end();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
