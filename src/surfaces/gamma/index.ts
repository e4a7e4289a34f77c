/** Family C's own API as a surface, and the family codec it makes with its wire codec. */
import { gammaWire } from '../../codecs/gamma/index.ts';
import { joinFamily, type FamilyCodec, type FamilySurface } from '../surface.ts';
import { tokenCounting } from './count-tokens.ts';
import { modelListing } from './model-list.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, readClientKey, routes, unknownPaths } from './surface.ts';

export const gammaSurface: FamilySurface = {
  codec: 'gamma',
  routes,
  unknownPaths,
  readClientKey,
  credentialHeaders,
  checkHeaders,
  rateLimitHeaders,
  modelListing,
  tokenCounting,
};

/** The family as the gateway serves it: the wire codec with its surface. */
export const gammaCodec: FamilyCodec = joinFamily(gammaWire, gammaSurface);
