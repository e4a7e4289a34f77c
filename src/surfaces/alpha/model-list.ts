/**
 * `GET /v1/models` in Family A's list shape (`{object:"list",data:[…]}`, no paging), each model
 * with the catalog's figures as extra fields. A is the default shape on the shared `/v1/models`
 * path and the only one on the unified path.
 */
import type { JsonObject } from '../../ir/index.ts';
import type { HeaderMap } from '../../codecs/codec.ts';
import type { ModelInfo, ModelListing } from '../surface.ts';

function describe(model: ModelInfo): JsonObject {
  return {
    id: model.name,
    object: 'model',
    created: 0,
    owned_by: model.family,
    family: model.family,
    upstream_model: model.upstreamModel,
    context_window: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
    pricing: {
      currency: 'USD',
      unit: 'per 1M tokens',
      input: model.pricing.inputPerMillion,
      output: model.pricing.outputPerMillion,
      cache_read_input: model.pricing.cacheReadPerMillion,
      cache_write_input: model.pricing.cacheWritePerMillion,
    },
    capabilities: { ...model.capabilities },
    aliases: [...model.aliases],
  };
}

export const modelListing: ModelListing = {
  paths: ['/v1/models', '/api/alpha/v1/models'],
  // A bearer key is every family's fallback credential: A answers when no other family claims.
  claims: (_headers: HeaderMap) => false,
  list: (models) => ({ object: 'list', data: models.map(describe) }),
  describe,
};
