/** Family B's own API as a surface, and the family codec it makes with its wire codec. */
import { betaWire } from '../../codecs/beta/index.ts';
import { joinFamily, type FamilyCodec, type FamilySurface } from '../surface.ts';
import { tokenCounting } from './count-tokens.ts';
import { modelListing } from './model-list.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, readClientKey, routes, unknownPaths } from './surface.ts';

export const betaSurface: FamilySurface = {
  codec: 'beta',
  routes,
  unknownPaths,
  readClientKey,
  credentialHeaders,
  checkHeaders,
  rateLimitHeaders,
  // The family's SDKs read the id from this header (`message._request_id`, an error's `requestID`).
  requestIdHeader: 'request-id',
  modelListing,
  tokenCounting,
};

/** The family as the gateway serves it: the wire codec with its surface. */
export const betaCodec: FamilyCodec = joinFamily(betaWire, betaSurface);
