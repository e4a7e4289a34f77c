/**
 * The bench's baseline: the cheapest honest Node hop. node:http in, one undici Pool (keep-alive) out,
 * request and response bytes passed through untouched (the response piped chunk by chunk), nothing
 * parsed. modelgate's throughput is judged against this, so keep it free of anything a real gateway
 * would add.
 *
 * Usage: node bench/bare-proxy.ts --port <p> --upstream http://127.0.0.1:<sim> [--host 127.0.0.1]
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

/** RFC 9110 §7.6.1 connection-scoped headers: never forwarded by a proxy. `host` is the upstream's. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

type Headers = Record<string, string | string[] | undefined>;

function forwardable(headers: Headers): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !hopByHop.has(name)) result[name] = value;
  }
  return result;
}

function fail(response: ServerResponse, error: Error): void {
  if (response.headersSent) {
    response.destroy(error);
    return;
  }
  response.writeHead(502, { 'content-type': 'text/plain' });
  response.end(`bare proxy: upstream failed: ${error.message}`);
}

/**
 * The request body is collected (not parsed) and sent as one buffer: any gateway reads the whole body
 * anyway, and handing undici a stream body costs ~10-25% more CPU per request here, which would make
 * the baseline look slower than the practical limit.
 */
function proxy(pool: Pool, request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
  });
  request.once('end', () => {
    forward(pool, request, response, chunks.length === 0 ? null : Buffer.concat(chunks));
  });
  request.once('error', (error) => {
    fail(response, error);
  });
}

function forward(pool: Pool, request: IncomingMessage, response: ServerResponse, body: Buffer | null): void {
  // `stream` writes the upstream body straight into the client response: no intermediate Readable.
  pool
    .stream(
      {
        path: request.url ?? '/',
        method: request.method ?? 'GET',
        headers: forwardable(request.headers),
        body,
      },
      ({ statusCode, headers }) => {
        // No flushHeaders(): the head leaves with the first body bytes, as any lean proxy would.
        response.writeHead(statusCode, forwardable(headers));
        return response;
      },
    )
    .catch((error: unknown) => {
      fail(response, error instanceof Error ? error : new Error(String(error)));
    });
}

function main(): void {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      upstream: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  if (values.port === undefined || values.upstream === undefined) {
    process.stderr.write('usage: node bench/bare-proxy.ts --port <p> --upstream <url>\n');
    process.exit(2);
  }
  const pool = new Pool(values.upstream, { pipelining: 1, keepAliveTimeout: 30_000 });
  const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
    proxy(pool, request, response);
  });
  server.listen(Number(values.port), values.host, () => {
    process.stdout.write(`bare proxy on http://${values.host}:${values.port} -> ${values.upstream}\n`);
  });
  const stop = (): void => {
    server.closeAllConnections();
    server.close();
    void pool.destroy().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main();
