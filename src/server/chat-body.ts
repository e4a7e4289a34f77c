/**
 * The chat route's read-body stage: the body, read under the watch the screen handed out, parsed;
 * then the request's abort signal, wired to the client leaving and to a shutdown's drain.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyWatch } from '../http/body-guard.ts';
import type { InFlight } from '../http/in-flight.ts';
import { parseJsonBody, readBody } from '../http/read-body.ts';

export async function readChatBody(
  request: IncomingMessage,
  limitBytes: number,
  watch: BodyWatch,
): Promise<unknown> {
  return parseJsonBody(await readBody(request, limitBytes, watch));
}

/** Aborted with `client_abort` when the client leaves before the answer ended, or by a drain. */
export function abortSignalFor(
  response: ServerResponse,
  controllers: InFlight<AbortController>,
): AbortSignal {
  const controller = new AbortController();
  const entry = controllers.add(controller);
  response.once('close', () => {
    controllers.delete(entry);
    if (!response.writableFinished) controller.abort('client_abort');
  });
  // The client may have left while its body was read: that 'close' has already fired.
  if (response.destroyed) {
    controllers.delete(entry);
    controller.abort('client_abort');
  }
  return controller.signal;
}
