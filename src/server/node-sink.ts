/** `ResponseSink` over a node:http response, with backpressure that cannot hang on a closed client. */
import type { ServerResponse } from 'node:http';
import type { ResponseHeaders, ResponseSink } from '../gateway/response-sink.ts';

export function createNodeSink(response: ServerResponse, baseHeaders: ResponseHeaders): ResponseSink {
  return {
    baseHeaders,
    sendJson(status, headers, body) {
      if (response.headersSent) return;
      response.writeHead(status, {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    },
    startStream(headers) {
      response.writeHead(200, {
        ...headers,
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
    end() {
      if (!response.writableEnded) response.end();
    },
  };
}
