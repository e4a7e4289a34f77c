/**
 * The chat route's stage after the body is read: the request's abort signal, wired to the client
 * leaving and to a shutdown's drain.
 */
import type { ServerResponse } from 'node:http';
import type { InFlight } from '../http/in-flight.ts';

/** Aborted with `client_abort` when the client leaves before the answer ended, or by a drain. */
export function abortSignalFor(
  response: ServerResponse,
  controllers: InFlight<AbortController>,
): AbortSignal {
  const controller = new AbortController();
  const entry = controllers.add(controller);
  // 'close' comes once per response (finished or not): `on` spares `once`'s wrapper and removal.
  response.on('close', () => {
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
