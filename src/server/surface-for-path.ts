/**
 * Which surface a request speaks, asked of the codecs (no family is named here): the one whose
 * route matches the path, else the one the path resembles (its errors come in that shape), else
 * the default. Shared by the router and the load shedder.
 */
import type { SurfaceCodec, SurfaceRoute } from '../families/codec.ts';
import { defaultSurface, surfaces } from '../families/registry.ts';

export interface SurfaceMatch {
  codec: SurfaceCodec;
  route: SurfaceRoute;
}

/** The surface route this path belongs to, if any. */
export function matchSurface(pathname: string): SurfaceMatch | undefined {
  for (const codec of surfaces) {
    const route = codec.matchRoute(pathname);
    if (route !== undefined) return { codec, route };
  }
  return undefined;
}

/** The surface whose shape answers a path no route matches. */
export function surfaceForUnknownPath(pathname: string): SurfaceCodec {
  for (const codec of surfaces) if (codec.resemblesPath(pathname)) return codec;
  return defaultSurface;
}

/** The surface whose shape answers this path: its own when a route matches. */
export function surfaceForPath(pathname: string): SurfaceCodec {
  return matchSurface(pathname)?.codec ?? surfaceForUnknownPath(pathname);
}

/**
 * The first of `names` (lower case) that the client sent more than once. node:http keeps only the
 * first `Authorization` and joins repeated custom headers, while a proxy in front may pick another
 * value: an ambiguous credential is refused rather than guessed. Scans `rawHeaders` without
 * allocating (names compared case-insensitively only when the lengths match).
 */
export function repeatedHeader(rawHeaders: readonly string[], names: readonly string[]): string | undefined {
  for (const name of names) {
    let seen = 0;
    for (let index = 0; index < rawHeaders.length; index += 2) {
      const raw = rawHeaders[index] as string;
      if (raw.length === name.length && raw.toLowerCase() === name && ++seen > 1) return name;
    }
  }
  return undefined;
}
