/**
 * The wire formats modelgate speaks, one line each: a new one is a folder under `codecs/` and a
 * line here. Each is a family: configuration accepts models of it and every surface reaches it
 * through the canonical request. The list is a value; `surfaces/registry.ts` builds the gateway's
 * registry from it.
 */
import { alphaWire } from './alpha/index.ts';
import { betaWire } from './beta/index.ts';
import type { WireCodec } from './codec.ts';
import { converseWire } from './converse/index.ts';
import { gammaWire } from './gamma/index.ts';

// One line per wire codec (prettier would fold the list onto one line).
// prettier-ignore
export const builtInCodecs: readonly WireCodec[] = [
  alphaWire,
  betaWire,
  gammaWire,
  converseWire,
];
