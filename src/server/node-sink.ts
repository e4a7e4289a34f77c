/**
 * `ResponseSink` over a node:http response, with backpressure that cannot hang on a closed client.
 *
 * A stream's head is not flushed on its own: it leaves with the first write, and node:http corks
 * the socket for the rest of the tick, so the head, the SSE text of one upstream read and (when
 * the upstream has finished) the end of the response go out in one `writev`.
 *
 * Trailers need chunked framing, which only HTTP/1.1 has: an HTTP/1.0 client (curl --http1.0,
 * nginx's default `proxy_http_version`) gets its stream framed by the connection's close and no
 * trailers (their values, the cost, are dropped: the ledger still has it). Decided when the sink
 * is made, before any upstream call, so an answer is never attempted that cannot be written.
 */
import type { ServerResponse } from 'node:http';
import type { ResponseHeaders, ResponseSink } from '../gateway/response-sink.ts';
import { writeHead } from './write-head.ts';

export function createNodeSink(response: ServerResponse, headers: ResponseHeaders): ResponseSink {
  return new NodeSink(response, headers);
}

class NodeSink implements ResponseSink {
  readonly headers: ResponseHeaders;
  readonly #response: ServerResponse;
  /** The client speaks HTTP/1.1 or later: chunked framing, so trailers can follow the body. */
  readonly #trailers: boolean;

  constructor(response: ServerResponse, headers: ResponseHeaders) {
    this.#response = response;
    this.headers = headers;
    const request = response.req;
    this.#trailers = request.httpVersionMajor > 1 || request.httpVersionMinor >= 1;
  }

  get started(): boolean {
    return this.#response.headersSent;
  }

  sendJson(status: number, body: string, extraHeaders?: ResponseHeaders): void {
    const response = this.#response;
    if (response.headersSent) return;
    const headers = this.headers;
    if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
    writeHead(response, status, headers);
    response.end(body);
  }

  startStream(extraHeaders?: ResponseHeaders, trailerNames?: readonly string[]): void {
    const headers = this.headers;
    if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
    if (this.#trailers && trailerNames !== undefined && trailerNames.length > 0)
      headers.trailer = trailerNames.join(', ');
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    // No flushHeaders(): the head leaves with the first write (the caller writes right after).
    writeHead(this.#response, 200, headers);
  }

  write(text: string): Promise<void> | undefined {
    const response = this.#response;
    if (response.destroyed || response.write(text)) return undefined;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
  }

  end(trailers?: Record<string, string>): void {
    const response = this.#response;
    if (response.writableEnded) return;
    if (trailers !== undefined && this.#trailers) response.addTrailers(trailers);
    response.end();
  }
}
