/** `ResponseSink` over a node:http response, with backpressure that cannot hang on a closed client. */
import type { ServerResponse } from 'node:http';
import type { ResponseHeaders, ResponseSink } from '../gateway/response-sink.ts';

export function createNodeSink(response: ServerResponse, headers: ResponseHeaders): ResponseSink {
  return {
    headers,
    get started() {
      return response.headersSent;
    },
    sendJson(status, body, extraHeaders) {
      if (response.headersSent) return;
      response.writeHead(status, {
        ...headers,
        ...extraHeaders,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    },
    startStream(extraHeaders, trailerNames) {
      response.writeHead(200, {
        ...headers,
        ...extraHeaders,
        ...(trailerNames === undefined || trailerNames.length === 0
          ? {}
          : { trailer: trailerNames.join(', ') }),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      response.flushHeaders();
    },
    write(text) {
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
    },
    end(trailers) {
      if (response.writableEnded) return;
      if (trailers !== undefined) response.addTrailers(trailers);
      response.end();
    },
  };
}
