/**
 * A transparent loopback proxy between a client and the gateway that records what the client sent
 * (method, path, header names, top-level body fields, model, stream flag) and what it got back
 * (status; the body of an error answer). Bodies are piped, never buffered on the answer side, so
 * streams reach the client as the gateway sends them. Key values are never recorded.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedExchange {
  method: string;
  /** Path with query values of `key` hidden. */
  path: string;
  headerNames: string[];
  bodyFields: string[];
  model: string | undefined;
  stream: boolean | undefined;
  /** The `type` of each tool the request declares (`function`, `web_search`, …). */
  toolTypes: string[];
  status: number;
  /** The answer's `warning` header (what the gateway left out or changed). */
  warning: string | undefined;
  /** The first 2 KB of a non-2xx answer. */
  errorBody: string | undefined;
}

export interface Recorder {
  url: string;
  exchanges: RecordedExchange[];
  close: () => Promise<void>;
}

const maxErrorBody = 2048;

export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  const exchanges: RecordedExchange[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const exchange = describeRequest(incoming.method ?? 'GET', incoming.url ?? '/', incoming.headers, body);
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          exchange.status = answer.statusCode ?? 0;
          const warning = answer.headers.warning;
          exchange.warning = Array.isArray(warning) ? warning.join(', ') : warning;
          exchanges.push(exchange);
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          let kept = '';
          answer.on('data', (chunk: Buffer) => {
            if (exchange.status >= 300 && kept.length < maxErrorBody) {
              kept += chunk.toString('utf8');
              exchange.errorBody = kept.slice(0, maxErrorBody);
            }
          });
          answer.pipe(outgoing);
        },
      );
      forward.on('error', (error) => {
        exchange.status = 502;
        exchange.errorBody = `recorder: ${error.message}`;
        exchanges.push(exchange);
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      forward.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolveListen) => server.once('listening', resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}

function describeRequest(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): RecordedExchange {
  let parsed: unknown;
  try {
    parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const fields = isRecord(parsed) ? parsed : {};
  const model = fields['model'];
  const stream = fields['stream'];
  const tools = fields['tools'];
  return {
    method,
    path: url.replace(/([?&]key=)[^&]*/g, '$1…'),
    headerNames: Object.keys(headers).sort(),
    bodyFields: Object.keys(fields).sort(),
    model: typeof model === 'string' ? model : undefined,
    stream: typeof stream === 'boolean' ? stream : undefined,
    toolTypes: Array.isArray(tools)
      ? tools.flatMap((tool) => (isRecord(tool) && typeof tool['type'] === 'string' ? [tool['type']] : []))
      : [],
    status: 0,
    warning: undefined,
    errorBody: undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line per exchange, for failure output and the development notes. */
export function describeExchanges(exchanges: readonly RecordedExchange[]): string {
  return exchanges
    .map((exchange) => {
      const head = `${exchange.method} ${exchange.path} -> ${exchange.status}`;
      const what = `model=${exchange.model ?? '-'} stream=${String(exchange.stream ?? '-')}`;
      const detail = `headers=[${exchange.headerNames.join(',')}] body=[${exchange.bodyFields.join(',')}]`;
      const error = exchange.errorBody === undefined ? '' : `\n    answer: ${exchange.errorBody}`;
      return `  ${head} ${what} ${detail}${error}`;
    })
    .join('\n');
}
