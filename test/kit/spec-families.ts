/**
 * The spec's three families by name, for tests whose fixtures and expectations are written per
 * family (a family's wire shapes, its models). The gateway itself knows families only through the
 * registry (`src/surfaces/registry.ts`); these tests name the ones they were written for.
 */
import { alphaCodec } from '../../src/surfaces/alpha/index.ts';
import { betaCodec } from '../../src/surfaces/beta/index.ts';
import type { FamilyCodec } from '../../src/surfaces/surface.ts';
import { gammaCodec } from '../../src/surfaces/gamma/index.ts';

export const specFamilies = ['alpha', 'beta', 'gamma'] as const;
export type SpecFamily = (typeof specFamilies)[number];

export const codecs: Readonly<Record<SpecFamily, FamilyCodec>> = {
  alpha: alphaCodec,
  beta: betaCodec,
  gamma: gammaCodec,
};

export const specCodecs: readonly FamilyCodec[] = [alphaCodec, betaCodec, gammaCodec];
