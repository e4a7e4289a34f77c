/**
 * `ResponseSink` over a node:http response, with backpressure that cannot hang on a closed client.
 *
 * A stream's head is not flushed on its own: it leaves with the first write, and node:http corks
 * the socket for the rest of the tick, so the head, the SSE text of one upstream read and (when
 * the upstream has finished) the end of the response go out in one `writev`.
 */
import type { ServerResponse } from 'node:http';
import type { ResponseHeaders, ResponseSink } from '../gateway/response-sink.ts';

export function createNodeSink(response: ServerResponse, headers: ResponseHeaders): ResponseSink {
  return new NodeSink(response, headers);
}

class NodeSink implements ResponseSink {
  readonly headers: ResponseHeaders;
  readonly #response: ServerResponse;

  constructor(response: ServerResponse, headers: ResponseHeaders) {
    this.#response = response;
    this.headers = headers;
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
    response.writeHead(status, headers);
    response.end(body);
  }

  startStream(extraHeaders?: ResponseHeaders, trailerNames?: readonly string[]): void {
    const headers = this.headers;
    if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
    if (trailerNames !== undefined && trailerNames.length > 0) headers.trailer = trailerNames.join(', ');
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    // No flushHeaders(): the head leaves with the first write (the caller writes right after).
    this.#response.writeHead(200, headers);
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
    if (trailers !== undefined) response.addTrailers(trailers);
    response.end();
  }
}
