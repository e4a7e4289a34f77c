/** The Responses API as a surface: its POST path; the key and headers are Family A's. */
import type { SurfaceRoute } from '../../codecs/codec.ts';
import { responsesPath } from './wire.ts';

export function matchRoute(pathname: string): SurfaceRoute | undefined {
  return pathname === responsesPath ? {} : undefined;
}

/** `/v1/responses/…` paths no route serves are answered in this surface's (A's) shape. */
export function resemblesPath(pathname: string): boolean {
  return pathname.startsWith(`${responsesPath}/`);
}
