/**
 * A family's id: one the registry lists (`surfaces/registry.ts`; the spec's three are `alpha`,
 * `beta` and `gamma` — Families A, B and C). The list is the registry's, not a type's, so a family
 * folder adds its id without touching the types: where an id comes from outside (configuration,
 * a path, a stored row) it is checked with the registry's `isFamilyId`, and lookups by id answer
 * `undefined` or throw for an id no family has. What a family must provide is typed strictly:
 * `FamilyCodec` and its `FamilyDescriptor`.
 */
export type FamilyId = string;
