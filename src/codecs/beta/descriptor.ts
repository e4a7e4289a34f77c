/** What the gateway knows of Family B besides its wire shapes (see `FamilyDescriptor`). */
import { isJsonObject, type ChatRequest } from '../../ir/index.ts';
import type { FamilyDescriptor } from '../codec.ts';
import { checkCacheMarkers } from './encode-request.ts';

/** B's top-level `cache_control` (automatic caching): its TTL ('' = default), or undefined. */
function automaticTtl(request: ChatRequest): string | undefined {
  const marker = request.extensions.beta?.cache_control;
  if (!isJsonObject(marker)) return undefined;
  return typeof marker.ttl === 'string' ? marker.ttl : '';
}

export const descriptor: FamilyDescriptor = {
  envPrefix: 'BETA',
  // The spec's rate-limit table.
  defaultLimits: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  // Cache reads cost a tenth of the input price, cache writes a quarter more.
  cachePriceFactors: { read: 0.1, write: 1.25 },
  idPrefixes: { response: 'msg_', toolCall: 'toolu_' },
  // Only what the client marks with `cache_control` is cached, at most four breakpoints.
  promptCaching: { explicit: true, granularity: 1, automaticTtl, checkMarkers: checkCacheMarkers },
  vendorPreset: 'anthropic',
};
