/**
 * The only list of families, and the one place that answers "which family?": by id, by path. A
 * fourth family is one folder and one line in `builtInFamilies`; nothing else in the code base names
 * a family. Every lookup reads the registry when it is made, so a family registered before a
 * gateway is built (`registerFamily`, as the fourth-family test does) is served like the others.
 */
import type { FamilyId } from '../ir/index.ts';
import { alphaCodec } from './alpha/index.ts';
import { betaCodec } from './beta/index.ts';
import { gammaCodec } from './gamma/index.ts';
import type { SurfaceRoute } from '../codecs/codec.ts';
import type { FamilyCodec, SurfaceCodec } from './surface.ts';
import { responsesSurface } from './responses/index.ts';

const builtInFamilies: readonly FamilyCodec[] = [alphaCodec, betaCodec, gammaCodec];

/** Surfaces that are not families (the Responses API): served after every family's own. */
const surfaceOnly: readonly SurfaceCodec[] = [responsesSurface];

const families = new Map<FamilyId, FamilyCodec>();
const familyList: FamilyCodec[] = [];
const idList: FamilyId[] = [];
const surfaceList: SurfaceCodec[] = [...surfaceOnly];

/**
 * Adds a family. Its id must be new, lower case (it names configuration keys and ledger rows), and
 * its environment prefix unused. Families registered after a gateway was configured are not served
 * by it: register first.
 */
export function registerFamily(codec: FamilyCodec): void {
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(codec.id))
    throw new Error(`family id ${JSON.stringify(codec.id)}: lower-case letters, digits, _ and -`);
  if (families.has(codec.id) || surfaceList.some((surface) => surface.id === codec.id))
    throw new Error(`family ${codec.id} is already registered`);
  if (codec.family !== codec.id) throw new Error(`family ${codec.id} must speak its own errors`);
  const prefix = codec.descriptor.envPrefix;
  if (!/^[A-Z][A-Z0-9_]*$/.test(prefix) || familyList.some((other) => other.descriptor.envPrefix === prefix))
    throw new Error(`family ${codec.id}: environment prefix ${prefix} is not upper case or is taken`);
  families.set(codec.id, codec);
  familyList.push(codec);
  idList.push(codec.id);
  // Family surfaces first, in registration order: their routes are matched before the surface-only ones.
  surfaceList.splice(familyList.length - 1, 0, codec);
}

for (const codec of builtInFamilies) registerFamily(codec);

/** Every family, in registration order. */
export function familyCodecs(): readonly FamilyCodec[] {
  return familyList;
}

/** Every family's id, in registration order. */
export function familyIds(): readonly FamilyId[] {
  return idList;
}

/** A registered family's id: how ids from outside (configuration, paths, stored rows) are checked. */
export function isFamilyId(value: string): boolean {
  return families.has(value);
}

/** The codec of a registered family; an id that is none is a programming error (ids are checked where they come in). */
export function familyCodec(id: FamilyId): FamilyCodec {
  const codec = families.get(id);
  if (codec === undefined) throw new Error(`no family ${JSON.stringify(id)} is registered`);
  return codec;
}

/** Paths that look like no surface's are answered in A's shape (the spec's unified path is A-shaped). */
export const defaultSurface: FamilyCodec = alphaCodec;

/** Every surface clients call: each family's own API, then the surface-only ones. */
export function surfaces(): readonly SurfaceCodec[] {
  return surfaceList;
}

export interface SurfaceMatch {
  codec: SurfaceCodec;
  route: SurfaceRoute;
}

/** The surface route this path belongs to, if any. */
export function matchSurface(pathname: string): SurfaceMatch | undefined {
  for (const codec of surfaceList) {
    const route = codec.matchRoute(pathname);
    if (route !== undefined) return { codec, route };
  }
  return undefined;
}

/**
 * The surface whose shape answers this path: its own when a route matches, else the one the path
 * resembles (its errors come in that shape), else the default.
 */
export function surfaceFor(pathname: string): SurfaceCodec {
  return matchSurface(pathname)?.codec ?? resembledSurface(pathname);
}

/** The surface whose shape answers a path no route matches. */
export function resembledSurface(pathname: string): SurfaceCodec {
  for (const codec of surfaceList) if (codec.resemblesPath(pathname)) return codec;
  return defaultSurface;
}
