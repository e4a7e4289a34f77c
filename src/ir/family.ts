/** The three API families, by the spec's neutral names. `A`/`B`/`C` appear only in docs. */
export const familyIds = ['alpha', 'beta', 'gamma'] as const;
export type FamilyId = (typeof familyIds)[number];

export function isFamilyId(value: string): value is FamilyId {
  return (familyIds as readonly string[]).includes(value);
}
