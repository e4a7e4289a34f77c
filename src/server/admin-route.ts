/** `/admin/…`: the admin API behind the admin key, answering in its own error shape. */
import type { IncomingMessage } from 'node:http';
import { AdminError, adminErrorBody, handleAdmin, type AdminDependencies } from '../admin/admin-api.ts';
import { defaultSurface } from '../surfaces/registry.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError } from '../ir/index.ts';
import type { Logger } from '../log/logger.ts';
import { isJsonContentType, parseJsonBody, readBody } from '../http/read-body.ts';

/** Sends a JSON answer with the request's common headers. */
export type Answer = (status: number, body: unknown, headers?: ResponseHeaders) => void;

/**
 * `continueBody` is called when the (authenticated) request's body is about to be read: it sends
 * `100 Continue` to a client waiting for it.
 */
export async function adminRoute(
  request: IncomingMessage,
  pathname: string,
  search: URLSearchParams,
  admin: AdminDependencies | undefined,
  logger: Logger,
  answer: Answer,
  continueBody: () => void = () => undefined,
): Promise<void> {
  try {
    if (admin === undefined) throw new AdminError(404, 'not_found', 'The admin API is not available');
    const result = await handleAdmin(
      {
        method: request.method ?? 'GET',
        pathname,
        search,
        // The admin key travels as a bearer token, the way the default surface carries keys.
        credential: defaultSurface.readClientKey(request.headers, search),
        address: request.socket.remoteAddress ?? '',
        body: async () => {
          if (!isJsonContentType(request.headers['content-type']))
            throw new AdminError(415, 'unsupported_media_type', 'Content-Type must be application/json');
          try {
            continueBody();
            return parseJsonBody(await readBody(request, 65_536));
          } catch (error) {
            if (error instanceof GatewayError)
              throw new AdminError(error.status, 'invalid_request', error.message);
            throw error;
          }
        },
      },
      admin,
    );
    answer(result.status, result.body);
  } catch (error) {
    if (error instanceof AdminError) {
      const retry = error.retryAfterSeconds;
      answer(
        error.status,
        adminErrorBody(error),
        retry === undefined ? undefined : { 'retry-after': String(retry) },
      );
      return;
    }
    logger.error('admin request failed', {
      cause: error instanceof Error ? error.name : 'unknown',
    });
    answer(500, adminErrorBody(new AdminError(500, 'server_error', 'internal error')));
  }
}
