/** What the gateway knows of Family C besides its wire shapes (see `FamilyDescriptor`). */
import type { FamilyDescriptor } from '../codec.ts';

export const descriptor: FamilyDescriptor = {
  envPrefix: 'GAMMA',
  // The spec's rate-limit table.
  defaultLimits: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
  // Cached input is billed at a quarter of the input price; the family reports no cache writes.
  cachePriceFactors: { read: 0.25, write: 1 },
  // C answers carry no response id; its calls get the same prefix as A's.
  idPrefixes: { response: '', toolCall: 'call_' },
  // Long prompts are cached on their own, reads counted to the token.
  promptCaching: { explicit: false, granularity: 1 },
  vendorPreset: 'gemini',
};
