/** Family A as a surface: its two POST paths and the bearer key. */
import type { GatewayError } from '../../ir/index.ts';
import type { HeaderMap } from '../../codecs/codec.ts';
import type { SurfacePath } from '../surface.ts';
import { chatCompletionsPath } from '../../codecs/alpha/wire.ts';

/** The unified path is A-shaped too (spec: one path for all families). */
const unifiedPath = '/api/alpha/v1/chat/completions';

export const routes: readonly SurfacePath[] = [
  { path: chatCompletionsPath, route: {} },
  { path: unifiedPath, route: {} },
];

/** Headers that may carry the key (a repeated one is refused by the server). */
export const credentialHeaders: readonly string[] = ['authorization'];

/** Paths no route matches but that look like this surface's (A is also the default shape). */
export const unknownPaths: readonly string[] = ['/v1/chat/*', '/api/*'];

/** `Authorization: Bearer K`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function readClientKey(headers: HeaderMap, _searchParams: URLSearchParams): string | undefined {
  const raw = headers.authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const space = trimmed.indexOf(' ');
  if (space === -1 || trimmed.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const key = trimmed.slice(space + 1).trim();
  return key === '' ? undefined : key;
}

/** A has no required header besides the key. */
export function checkHeaders(_headers: HeaderMap): GatewayError | undefined {
  return undefined;
}
