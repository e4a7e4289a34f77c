/**
 * The parsing floor: the least work any gateway that reads what it forwards must do for a
 * same-family chat-completions request, and nothing else — no keys, limits, ledger, metrics, log,
 * validation or retries. It reads the body, parses it, renames the model, sends it upstream (the
 * same undici Pool the bare proxy uses), reads the answer whole and parses it (a gateway needs its
 * usage), renames the model in the text and answers with the headers modelgate sends (request id,
 * rate limits, overhead, served-by, cost). Streams are renamed chunk by chunk as they arrive.
 *
 * `npm run bench:ab -- chat-openai bare floor .` puts modelgate between the bare proxy (nothing
 * parsed) and this floor: the gap to the floor is what modelgate's own features cost.
 *
 * Usage: node bench/parsing-floor.ts --port <p> --upstream http://127.0.0.1:<mock>
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8799' },
    upstream: { type: 'string', default: 'http://127.0.0.1:9100' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});

/** The client's model name and the upstream's, as in the rig's config. */
const clientModel = 'A-3';
const upstreamModel = 'gpt-4o-mini';
const upstreamField = `"model":"${upstreamModel}"`;
const clientField = `"model":"${clientModel}"`;

const pool = new Pool(values.upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });
let served = 0;

/** What modelgate's answers carry besides the body's own headers (values of the rig's limits). */
function answerHeaders(): Record<string, string> {
  served++;
  return {
    'x-request-id': `req_${served.toString(36).padStart(18, '0')}`,
    'x-ratelimit-limit-requests': '1000000000',
    'x-ratelimit-remaining-requests': '999999999',
    'x-ratelimit-reset-requests': '1m0s',
    'x-ratelimit-limit-tokens': '1000000000000',
    'x-ratelimit-remaining-tokens': '1000000000000',
    'x-ratelimit-reset-tokens': '0s',
    'x-modelgate-overhead-ms': '0.10',
    'x-modelgate-served-by': clientModel,
  };
}

function fail(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message } }));
}

async function forward(body: string, response: ServerResponse): Promise<void> {
  const request = JSON.parse(body) as { model?: unknown; stream?: unknown };
  if (request.model !== clientModel) {
    fail(response, 404, `only ${clientModel} is served here`);
    return;
  }
  request.model = upstreamModel;
  const outgoing = JSON.stringify(request);
  const upstream = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-mock' },
    body: outgoing,
  });
  if (request.stream === true) {
    const headers = answerHeaders();
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    response.writeHead(upstream.statusCode, headers);
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      if (!response.write(chunk.toString('utf8').replaceAll(upstreamField, clientField)))
        await new Promise((resolve) => response.once('drain', resolve));
    }
    response.end();
    return;
  }
  const text = await upstream.body.text();
  JSON.parse(text); // a gateway reads the answer's usage
  const answer = text.replace(upstreamField, clientField);
  const headers = answerHeaders();
  headers['x-modelgate-cost-usd'] = '0.000027';
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(answer));
  response.writeHead(upstream.statusCode, headers);
  response.end(answer);
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString();
    forward(body, response).catch((error: unknown) => {
      fail(response, 502, error instanceof Error ? error.message : 'upstream failed');
    });
  });
}

createServer(handle).listen(Number(values.port), values.host);
process.on('SIGTERM', () => process.exit(0));
