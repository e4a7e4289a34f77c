/** The only place the families are listed. A fourth family is one folder and one line here. */
import type { FamilyId } from '../ir/index.ts';
import { alphaCodec } from './alpha/index.ts';
import { betaCodec } from './beta/index.ts';
import { gammaCodec } from './gamma/index.ts';
import type { FamilyCodec, SurfaceCodec } from './codec.ts';
import { responsesSurface } from './responses/index.ts';

export const codecs: Readonly<Record<FamilyId, FamilyCodec>> = {
  alpha: alphaCodec,
  beta: betaCodec,
  gamma: gammaCodec,
};

export const codecList: readonly FamilyCodec[] = Object.values(codecs);

/** Paths that look like no family's are answered in A's shape (the spec's unified path is A-shaped). */
export const defaultSurface: FamilyCodec = codecs.alpha;

/** Every surface clients call: each family's own API, then the surface-only ones. */
export const surfaces: readonly SurfaceCodec[] = [...codecList, responsesSurface];
