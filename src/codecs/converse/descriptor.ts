/** What the gateway knows of the Converse family besides its wire shapes (see `FamilyDescriptor`). */
import type { FamilyDescriptor } from '../codec.ts';

export const descriptor: FamilyDescriptor = {
  envPrefix: 'CONVERSE',
  // Bedrock's default on-demand quotas vary per model; B's table is the nearest published one.
  defaultLimits: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  // Bedrock prices cache reads at a tenth of input and cache writes at a quarter more (as B).
  cachePriceFactors: { read: 0.1, write: 1.25 },
  // Converse answers carry no message id; tool uses are `tooluse_…`.
  idPrefixes: { response: 'msg_', toolCall: 'tooluse_' },
  // Only what the client marks (`cachePoint`) is cached.
  promptCaching: { explicit: true, granularity: 1 },
};
