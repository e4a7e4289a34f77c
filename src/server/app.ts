/**
 * The HTTP front: routes, client authentication, body reading, and error encoding in the shape
 * of the surface the client called. node:http directly: the hot path has no framework layers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/config.ts';
import type { FamilyCodec } from '../families/codec.ts';
import { codecList, codecs } from '../families/registry.ts';
import { handleChat, type ChatDependencies } from '../gateway/handle-chat.ts';
import { generateId } from '../gateway/ids.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError, type JsonObject } from '../ir/index.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { Logger } from '../log/logger.ts';
import { listModels, describeModel } from './models-route.ts';
import { createNodeSink } from './node-sink.ts';
import { isJsonContentType, parseJsonBody, readBody } from './read-body.ts';

export interface AppDependencies extends ChatDependencies {
  config: Config;
  keys: ClientKeys;
  logger: Logger;
  /** Upstream health (deployments, circuit breakers) for `GET /admin/health`. */
  health?: () => JsonObject;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export function createRequestHandler(dependencies: AppDependencies): RequestHandler {
  return (request, response) => {
    const requestId = generateId('req_');
    const started = performance.now();
    void route(request, response, requestId, dependencies)
      .catch((error: unknown) => {
        // Last resort: a bug must cost one request, never the process.
        dependencies.logger.error('unhandled', {
          requestId,
          cause: error instanceof Error ? error.name : 'unknown',
        });
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(
            '{"error":{"message":"internal error","type":"server_error","param":null,"code":"server_error"}}',
          );
        } else response.end();
      })
      .finally(() => {
        dependencies.logger.info('request', {
          requestId,
          method: request.method,
          path: pathOf(request.url),
          status: response.statusCode,
          ms: Math.round((performance.now() - started) * 100) / 100,
        });
      });
  };
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  dependencies: AppDependencies,
): Promise<void> {
  const url = request.url ?? '';
  const queryStart = url.indexOf('?');
  const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const baseHeaders: ResponseHeaders = { 'x-request-id': requestId };
  if (request.method === 'GET' && pathname === '/healthz') {
    sendJson(response, 200, baseHeaders, { status: 'ok' });
    return;
  }
  // Created first so that every answer, errors included, carries the same headers.
  const sink = createNodeSink(response, baseHeaders);
  // The catalog is listed on the A surface and on the unified path (same shape).
  const modelsPath = pathname.startsWith('/api/alpha/v1/models')
    ? pathname.slice('/api/alpha'.length)
    : pathname;
  if (request.method === 'GET' && (modelsPath === '/v1/models' || modelsPath.startsWith('/v1/models/'))) {
    await modelsRoute(request, response, modelsPath, search, baseHeaders, dependencies);
    return;
  }
  const match = matchSurface(pathname);
  const surface = match?.codec ?? surfaceForUnknownPath(pathname);
  try {
    if (match === undefined)
      throw new GatewayError('not_found', `No route for ${request.method ?? ''} ${safePath(pathname)}`);
    if (request.method !== 'POST') throw new GatewayError('not_found', `Use POST for ${safePath(pathname)}`);
    const clientId = dependencies.keys.identify(surface.readClientKey(request.headers, search));
    if (clientId === undefined) throw new GatewayError('authentication', 'Invalid or missing API key');
    const headerError = surface.checkHeaders(request.headers);
    if (headerError !== undefined) throw headerError;
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new GatewayError('unsupported_media_type', 'Content-Type must be application/json');
    }
    const body = parseJsonBody(await readBody(request, dependencies.config.bodyLimitBytes));
    const controller = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    await handleChat(
      {
        surface,
        route: match.route,
        body,
        headers: request.headers,
        sink,
        signal: controller.signal,
        clientId,
      },
      dependencies,
    );
  } catch (error) {
    sendError(response, surface, error, sink.headers, requestId, dependencies.logger);
  }
}

function matchSurface(
  pathname: string,
): { codec: FamilyCodec; route: NonNullable<ReturnType<FamilyCodec['matchRoute']>> } | undefined {
  for (const codec of codecList) {
    const route = codec.matchRoute(pathname);
    if (route !== undefined) return { codec, route };
  }
  return undefined;
}

/** Errors for paths no surface owns still come in a family's shape: the one the path resembles. */
function surfaceForUnknownPath(pathname: string): FamilyCodec {
  if (pathname.startsWith('/v1/messages')) return codecs.beta;
  if (pathname.startsWith('/v1beta/') || pathname.startsWith('/v1/models/')) return codecs.gamma;
  return codecs.alpha;
}

async function modelsRoute(
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
  search: URLSearchParams,
  baseHeaders: ResponseHeaders,
  dependencies: AppDependencies,
): Promise<void> {
  const alpha = codecs.alpha;
  if (!dependencies.keys.accepts(alpha.readClientKey(request.headers, search))) {
    sendError(
      response,
      alpha,
      new GatewayError('authentication', 'Invalid or missing API key'),
      baseHeaders,
      '',
      dependencies.logger,
    );
    return;
  }
  const entries = dependencies.models.list();
  const listing = listModels(entries, dependencies.config.aliases);
  if (pathname === '/v1/models') {
    sendJson(response, 200, baseHeaders, listing);
    return;
  }
  const name = safeDecode(pathname.slice('/v1/models/'.length));
  const entry = dependencies.models.resolve(name);
  if (entry === undefined) {
    sendError(
      response,
      alpha,
      new GatewayError('not_found', `The model \`${name}\` does not exist`),
      baseHeaders,
      '',
      dependencies.logger,
    );
    return;
  }
  sendJson(response, 200, baseHeaders, describeModel(entry, []));
  await Promise.resolve();
}

/** A malformed `%` escape is a client mistake, not an exception. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function sendJson(response: ServerResponse, status: number, headers: ResponseHeaders, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  surface: FamilyCodec,
  error: unknown,
  baseHeaders: ResponseHeaders,
  requestId: string,
  logger: Logger,
): void {
  const gatewayError =
    error instanceof GatewayError ? error : new GatewayError('internal', 'internal error', { cause: error });
  if (gatewayError.kind === 'internal' || gatewayError.cause !== undefined) {
    logger.warn('request failed', {
      requestId,
      kind: gatewayError.kind,
      cause: describeCause(gatewayError.cause),
    });
  }
  if (response.headersSent) {
    response.end();
    return;
  }
  const wire = surface.encodeError(gatewayError);
  const headers: ResponseHeaders = { ...baseHeaders, ...wire.headers };
  if (gatewayError.kind === 'payload_too_large') headers.connection = 'close';
  sendJson(response, wire.status, headers, wire.body);
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return typeof cause === 'string' ? cause : 'non-error cause';
}

function pathOf(url: string | undefined): string {
  const value = url ?? '';
  const queryStart = value.indexOf('?');
  return safePath(queryStart === -1 ? value : value.slice(0, queryStart));
}

/** Paths echoed in messages and logs: bounded, printable (no CRLF games). */
function safePath(pathname: string): string {
  return pathname.slice(0, 200).replace(/[^\x21-\x7e]/g, '?');
}
