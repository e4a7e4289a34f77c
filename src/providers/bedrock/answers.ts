/**
 * Answers the Bedrock transport builds from what Bedrock sent: a body already read given back as
 * one chunk, and an error answer under the status its exception stands for.
 */
import type { UpstreamResponse } from '../../upstream/transport.ts';
import { betaErrorBody, exceptionName, statusForException } from './errors.ts';
import type { StreamFraming } from './event-stream.ts';

/** A body already read, as the one chunk it is. */
function oneChunk(text: string): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () => {
      let done = false;
      return {
        next: () => {
          const result: IteratorResult<string> = done
            ? { done: true, value: undefined }
            : { done: false, value: text };
          done = true;
          return Promise.resolve(result);
        },
      };
    },
  };
}

/** A JSON answer whose body the transport wrote (or rewrote) itself. */
export function jsonAnswer(
  status: number,
  headers: UpstreamResponse['headers'],
  text: string,
): UpstreamResponse {
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
    body: oneChunk(text),
    text: () => Promise.resolve(text),
    cancel: () => undefined,
  };
}

/**
 * An error answer under the status Bedrock's exception stands for, its body (small, already capped
 * by the HTTP transport) read now and, for InvokeModel, put in B's error shape for the B codec.
 */
export function errorAnswer(
  response: UpstreamResponse,
  raw: string,
  framing: StreamFraming,
): UpstreamResponse {
  const status = statusForException(exceptionName(response.headers['x-amzn-errortype']), response.status);
  return jsonAnswer(status, response.headers, framing === 'invoke' ? betaErrorBody(raw, status) : raw);
}
