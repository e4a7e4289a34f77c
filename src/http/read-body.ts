/** Reads a request body with a size cap checked while reading (and up front from content-length). */
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../ir/index.ts';
import type { BodyWatch } from './body-guard.ts';
import { exceedsJsonDepth } from './json-depth.ts';

/** The body's declared length; undefined when it has none (chunked). */
export function declaredLength(request: IncomingMessage): number | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) ? declared : undefined;
}

/**
 * The body as text. Listeners rather than `for await`: the async iterator costs ~15 µs per request
 * on the hot path, and a chat body nearly always arrives in the packet of its headers (one 'data',
 * then 'end'): that chunk is decoded once at the end. A body in several chunks is decoded chunk by
 * chunk as it arrives (UTF-8 sequences split between chunks are kept whole), so a large body costs
 * the event loop its parse at the end, not a copy and a decode of everything at once. Over the
 * cap the request is paused (not destroyed), so the 413 can still be written. A `watch` (the global
 * byte cap, the read deadline and minimum rate) is told every chunk and may end the read with its
 * error; it is finished however the read ends.
 */
export function readBody(request: IncomingMessage, limitBytes: number, watch?: BodyWatch): Promise<string> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limitBytes) {
    watch?.finish();
    return Promise.reject(tooLarge(limitBytes));
  }
  return new Promise<string>((resolve, reject) => {
    let first: Buffer | undefined;
    let decoder: StringDecoder | undefined;
    let pieces: string[] | undefined;
    let size = 0;
    const stop = (error: Error): void => {
      done();
      request.pause();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      const refused = watch?.receive(chunk.length);
      if (refused !== undefined) stop(refused);
      else if (size > limitBytes) stop(tooLarge(limitBytes));
      else if (first === undefined) first = chunk;
      else if (decoder === undefined) {
        decoder = new StringDecoder('utf8');
        pieces = [decoder.write(first), decoder.write(chunk)];
      } else pieces?.push(decoder.write(chunk));
    };
    const onEnd = (): void => {
      done();
      if (decoder !== undefined && pieces !== undefined) {
        pieces.push(decoder.end());
        resolve(pieces.join(''));
      } else resolve(first === undefined ? '' : first.toString('utf8'));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    // 'close' before 'end': the client went away mid-body.
    const onClose = (): void => {
      done();
      reject(
        new GatewayError('invalid_request', 'the client closed the connection before the body was complete'),
      );
    };
    const done = (): void => {
      watch?.finish();
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    if (watch !== undefined) watch.onCut = stop;
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

export function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `request body exceeds the limit of ${limitBytes} bytes`);
}

/** Deepest JSON nesting accepted: deeper bodies are a 400 before they are parsed. */
export const maxJsonDepth = 128;

const byteOrderMark = 0xfeff;

export function parseJsonBody(text: string): unknown {
  // A byte order mark (some Windows tools write one) is not part of the JSON text (RFC 8259 §8.1).
  const body = text.charCodeAt(0) === byteOrderMark ? text.slice(1) : text;
  if (body.length === 0)
    throw new GatewayError('invalid_request', 'request body is empty: a JSON object is required');
  if (exceedsJsonDepth(body, maxJsonDepth))
    throw new GatewayError('invalid_request', `request body nests deeper than ${maxJsonDepth} levels`);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new GatewayError('invalid_request', 'request body is not valid JSON');
  }
}

export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}
