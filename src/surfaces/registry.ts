/**
 * The gateway's registry: the wire codecs (`codecs/registry.ts`, the families) and the surfaces
 * clients call (`builtInSurfaces`, one line each), and the one place that answers "which family?"
 * (by id) and "which surface?" (by path). A family's own API is a surface that names its codec;
 * served, the two are joined into a `FamilyCodec`. A registry is a value (`createRegistry`); the
 * gateway's own is `registry`, which the lookups below read when they are made, so a codec or
 * surface registered before a gateway is built (as the fourth-family tests do) is served too.
 */
import type { SurfaceRoute, WireCodec } from '../codecs/codec.ts';
import { builtInCodecs } from '../codecs/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import { alphaSurface } from './alpha/index.ts';
import { betaSurface } from './beta/index.ts';
import { gammaSurface } from './gamma/index.ts';
import { responsesSurface } from './responses/index.ts';
import {
  coversPath,
  joinFamily,
  matchDeclaredRoute,
  type FamilyCodec,
  type FamilySurface,
  type SurfaceCodec,
} from './surface.ts';

/** A line of the surface list: a family's own API (fronting the codec it names) or a surface-only one. */
export type SurfaceEntry = FamilySurface | SurfaceCodec;

// One line per surface (prettier would fold the list onto one line).
// prettier-ignore
export const builtInSurfaces: readonly SurfaceEntry[] = [
  alphaSurface,
  betaSurface,
  gammaSurface,
  responsesSurface,
];

export interface SurfaceMatch {
  codec: SurfaceCodec;
  route: SurfaceRoute;
}

function isFamilySurface(entry: SurfaceEntry): entry is FamilySurface {
  return 'codec' in entry;
}

/** Codecs and surfaces, checked as they are added; lookups read what was added so far. */
export class Registry {
  readonly #codecs = new Map<FamilyId, WireCodec>();
  readonly #codecList: WireCodec[] = [];
  readonly #ids: FamilyId[] = [];
  readonly #families: FamilyCodec[] = [];
  readonly #surfaceOnly: SurfaceCodec[] = [];
  /** Family surfaces first, in registration order: their routes are matched before the surface-only ones. */
  #surfaces: readonly SurfaceCodec[] = [];

  /**
   * Adds a wire codec: a family. Its id must be new, lower case (it names configuration keys and
   * ledger rows), and its environment prefix unused. Register before a gateway is configured.
   */
  registerCodec(codec: WireCodec): void {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(codec.id))
      throw new Error(`family id ${JSON.stringify(codec.id)}: lower-case letters, digits, _ and -`);
    if (this.#codecs.has(codec.id) || this.#surfaces.some((surface) => surface.id === codec.id))
      throw new Error(`family ${codec.id} is already registered`);
    const prefix = codec.descriptor.envPrefix;
    const taken = this.#codecList.some((other) => other.descriptor.envPrefix === prefix);
    if (!/^[A-Z][A-Z0-9_]*$/.test(prefix) || taken)
      throw new Error(`family ${codec.id}: environment prefix ${prefix} is not upper case or is taken`);
    this.#codecs.set(codec.id, codec);
    this.#codecList.push(codec);
    this.#ids.push(codec.id);
  }

  /**
   * Adds a surface: a family's own API (its codec registered, not yet fronted) or a surface-only
   * one (its id new, speaking a registered family's errors).
   */
  registerSurface(entry: SurfaceEntry): void {
    if (isFamilySurface(entry)) {
      const codec = this.#codecs.get(entry.codec);
      if (codec === undefined) throw new Error(`surface of ${entry.codec}: no such codec is registered`);
      if (this.#families.some((family) => family.id === entry.codec))
        throw new Error(`family ${entry.codec} is already registered`);
      this.#families.push(joinFamily(codec, entry));
    } else {
      if (!/^[a-z][a-z0-9_-]{0,31}$/.test(entry.id))
        throw new Error(`surface id ${JSON.stringify(entry.id)}: lower-case letters, digits, _ and -`);
      if (this.#codecs.has(entry.id) || this.#surfaces.some((surface) => surface.id === entry.id))
        throw new Error(`surface ${entry.id} is already registered`);
      if (!this.#codecs.has(entry.family)) throw new Error(`surface ${entry.id}: no family ${entry.family}`);
      this.#surfaceOnly.push(entry);
    }
    this.#surfaces = [...this.#families, ...this.#surfaceOnly];
  }

  /** Every family (wire codec), in registration order. */
  familyCodecs(): readonly WireCodec[] {
    return this.#codecList;
  }

  familyIds(): readonly FamilyId[] {
    return this.#ids;
  }

  isFamilyId(value: string): boolean {
    return this.#codecs.has(value);
  }

  /** A registered family's codec; an id that is none is a programming error (ids are checked where they come in). */
  familyCodec(id: FamilyId): WireCodec {
    const codec = this.#codecs.get(id);
    if (codec === undefined) throw new Error(`no family ${JSON.stringify(id)} is registered`);
    return codec;
  }

  /** The families that have a surface of their own, joined with it (model lists, the simulator's routes). */
  familySurfaces(): readonly FamilyCodec[] {
    return this.#families;
  }

  /** Every surface clients call: each family's own API, then the surface-only ones. */
  surfaces(): readonly SurfaceCodec[] {
    return this.#surfaces;
  }

  /** Paths that look like no surface's are answered in the first family surface's shape (A's: the unified path is A-shaped). */
  defaultSurface(): FamilyCodec {
    const first = this.#families[0];
    if (first === undefined) throw new Error('no family surface is registered');
    return first;
  }

  /**
   * The surface route this path belongs to, if any, read from the surfaces' declared routes (the
   * server's route table holds the same rows; this reads them for the simulator and load shedding).
   */
  matchSurface(pathname: string): SurfaceMatch | undefined {
    for (const codec of this.#surfaces) {
      const route = matchDeclaredRoute(codec.routes, pathname);
      if (route !== undefined) return { codec, route };
    }
    return undefined;
  }

  /** The surface whose shape answers a path no route matches: the one whose unknown paths cover it, else the default. */
  resembledSurface(pathname: string): SurfaceCodec {
    for (const codec of this.#surfaces) if (coversPath(codec.unknownPaths, pathname)) return codec;
    return this.defaultSurface();
  }
}

/** A registry of these codecs and surfaces, in this order. */
export function createRegistry(codecs: readonly WireCodec[], surfaces: readonly SurfaceEntry[]): Registry {
  const created = new Registry();
  for (const codec of codecs) created.registerCodec(codec);
  for (const surface of surfaces) created.registerSurface(surface);
  return created;
}

/** The gateway's registry: the built-in codecs and surfaces. */
export const registry = createRegistry(builtInCodecs, builtInSurfaces);

/**
 * Adds a family served as a surface of its own: its codec and, the same object, its surface (its
 * errors must be its own).
 */
export function registerFamily(codec: FamilyCodec): void {
  if (codec.family !== codec.id) throw new Error(`family ${codec.id} must speak its own errors`);
  registry.registerCodec(codec);
  registry.registerSurface({ ...codec, codec: codec.id });
}

// The lookups the gateway makes, read from `registry` when called.
export const familyCodecs = (): readonly WireCodec[] => registry.familyCodecs();
export const familyIds = (): readonly FamilyId[] => registry.familyIds();
export const isFamilyId = (value: string): boolean => registry.isFamilyId(value);
export const familyCodec = (id: FamilyId): WireCodec => registry.familyCodec(id);
export const familySurfaces = (): readonly FamilyCodec[] => registry.familySurfaces();
export const surfaces = (): readonly SurfaceCodec[] => registry.surfaces();

/** The surface whose shape answers this path: its own when a route matches, else the one it resembles. */
export function surfaceFor(pathname: string): SurfaceCodec {
  return registry.matchSurface(pathname)?.codec ?? registry.resembledSurface(pathname);
}

/** Paths that look like no surface's are answered in A's shape (the spec's unified path is A-shaped). */
export const defaultSurface: FamilyCodec = registry.defaultSurface();
