/** Family A's own API as a surface, and the family codec it makes with its wire codec. */
import { alphaWire } from '../../codecs/alpha/index.ts';
import { joinFamily, type FamilyCodec, type FamilySurface } from '../surface.ts';
import { modelListing } from './model-list.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, readClientKey, routes, unknownPaths } from './surface.ts';

export const alphaSurface: FamilySurface = {
  codec: 'alpha',
  routes,
  unknownPaths,
  readClientKey,
  credentialHeaders,
  checkHeaders,
  rateLimitHeaders,
  modelListing,
};

/** The family as the gateway serves it: the wire codec with its surface. */
export const alphaCodec: FamilyCodec = joinFamily(alphaWire, alphaSurface);
