/** What the gateway knows of Family A besides its wire shapes (see `FamilyDescriptor`). */
import type { FamilyDescriptor } from '../codec.ts';

export const descriptor: FamilyDescriptor = {
  envPrefix: 'ALPHA',
  // The spec's rate-limit table.
  defaultLimits: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
  // Cached input is billed at half the input price; the family reports no cache writes.
  cachePriceFactors: { read: 0.5, write: 1 },
  idPrefixes: { response: 'chatcmpl-', toolCall: 'call_' },
  // Prompts of 1024 tokens or more are cached on their own, reads counted in 128-token steps.
  promptCaching: { explicit: false, granularity: 128 },
  vendorPreset: 'openai',
};
