/** Reads a request body with a size cap checked while reading (and up front from content-length). */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../ir/index.ts';
import { exceedsJsonDepth } from './json-depth.ts';

export async function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) throw tooLarge(limitBytes);
    chunks.push(buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `request body exceeds the limit of ${limitBytes} bytes`);
}

/** Deepest JSON nesting accepted: deeper bodies are a 400 before they are parsed. */
export const maxJsonDepth = 128;

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0)
    throw new GatewayError('invalid_request', 'request body is empty: a JSON object is required');
  if (exceedsJsonDepth(body, maxJsonDepth))
    throw new GatewayError('invalid_request', `request body nests deeper than ${maxJsonDepth} levels`);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new GatewayError('invalid_request', 'request body is not valid JSON');
  }
}

export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}
