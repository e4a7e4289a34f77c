/**
 * One Responses API request's turn: the id and time the answer carries, and the client's body the
 * answer echoes.
 */
import type { SurfaceTurn } from '../families/codec.ts';
import { generateId } from '../gateway/ids.ts';
import { isJsonObject } from '../ir/index.ts';

export function responsesTurn(body: unknown, _keyId: string, now: number): SurfaceTurn | undefined {
  if (!isJsonObject(body)) return undefined;
  return { id: generateId('resp_'), createdAt: Math.floor(now / 1000), body };
}
