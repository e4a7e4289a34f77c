/**
 * What a chat request must pass, from its headers alone, before a byte of its body is read — so a
 * client that will be refused anyway costs no memory, no parsing and no slot time. In order: the
 * declared length against the body cap (413); the key's fair share of the in-flight slots (429);
 * the admission screen (a spent budget, no request left in any family the key may call, a model
 * the path names that the key may not use); a place under the global cap on bytes being read
 * (the overloaded error). Only then is `100 Continue` sent to a client that waits for it.
 * Authentication comes before all of these (`chat-authenticate.ts`). The screen stage of the chat route.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ModelEntry } from '../config/catalog.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { BodyGuard, BodyWatch } from '../http/body-guard.ts';
import type { KeySlots } from './key-slots.ts';
import type { RequestAdmission } from './request-admission.ts';
import { declaredLength, tooLarge } from '../http/read-body.ts';

export interface BeforeBodyGuards {
  slots: KeySlots;
  bodies: BodyGuard;
  admission: RequestAdmission;
  bodyLimitBytes: number;
}

export interface BeforeBodyRequest {
  keyId: string;
  surface: SurfaceCodec;
  /** The model the path names (the C surface), resolved. */
  entry: ModelEntry | undefined;
  /** The path selects streaming (C). */
  stream: boolean;
  context: RequestContext;
}

/**
 * Passes the checks or throws the refusal (a promise of them when the screen asks a store); the
 * watch goes to `readBody`. A screen with nothing to ask passes with no promise.
 */
export function beforeBody(
  request: IncomingMessage,
  response: ServerResponse,
  input: BeforeBodyRequest,
  guards: BeforeBodyGuards,
): BodyWatch | Promise<BodyWatch> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > guards.bodyLimitBytes) throw tooLarge(guards.bodyLimitBytes);
  guards.slots.take(input.keyId, response);
  // Count-tokens requests too: a count is a request (`limits/request-meter.ts`).
  const screening = guards.admission.screen(input);
  if (screening === undefined) return startBody(request, response, declared, guards);
  return screening.then(() => startBody(request, response, declared, guards));
}

function startBody(
  request: IncomingMessage,
  response: ServerResponse,
  declared: number | undefined,
  guards: BeforeBodyGuards,
): BodyWatch {
  const watch = guards.bodies.start(declared);
  if (expectsContinue(request)) response.writeContinue();
  return watch;
}

export function expectsContinue(request: IncomingMessage): boolean {
  const expect = request.headers.expect;
  return expect !== undefined && expect.toLowerCase() === '100-continue';
}
