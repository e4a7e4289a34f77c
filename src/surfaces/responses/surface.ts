/** The Responses API as a surface: its POST path; the key and headers are Family A's. */
import type { SurfacePath } from '../surface.ts';
import { responsesPath } from './wire.ts';

export const routes: readonly SurfacePath[] = [{ path: responsesPath, route: {} }];

/** `/v1/responses/…` paths no route serves (stored responses aside) are answered in this surface's (A's) shape. */
export const unknownPaths: readonly string[] = [`${responsesPath}/*`];
