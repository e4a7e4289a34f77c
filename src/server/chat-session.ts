/**
 * The chat route's surface-session stage: a surface that keeps state between requests opens its
 * turn here. Today that is the Responses API, which answers with its own ids and keeps what it
 * answered (`responses-turn.ts`); every other surface has no session.
 */
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { ResponseStore } from '../store/response-store.ts';
import { beginResponsesTurn, type ResponsesTurn } from './responses-turn.ts';

export interface SessionDependencies {
  config: Config;
  logger: Logger;
  responses?: ResponseStore | undefined;
}

/** Undefined at once for a surface without sessions (every chat but the Responses API's: no promise). */
export function openSession(
  surface: SurfaceCodec,
  body: unknown,
  keyId: string,
  now: number,
  dependencies: SessionDependencies,
): Promise<ResponsesTurn | undefined> | undefined {
  if (surface.id !== 'responses') return undefined;
  return beginResponsesTurn(body, keyId, dependencies.responses, now, dependencies.logger, {
    builtInTools: dependencies.config.responses.builtInTools,
    maxStoredBytes: dependencies.config.responses.maxStoredBytes,
    maxChainChars: dependencies.config.bodyLimitBytes,
  });
}
