/** `GET /v1/models` in Family A's list shape, with the catalog's figures as extra fields. */
import type { ModelEntry } from '../config/catalog.ts';
import type { JsonObject } from '../ir/index.ts';

export function describeModel(entry: ModelEntry, aliases: readonly string[]): JsonObject {
  return {
    id: entry.name,
    object: 'model',
    created: 0,
    owned_by: entry.family,
    family: entry.family,
    upstream_model: entry.upstreamModel,
    context_window: entry.contextWindow,
    max_output_tokens: entry.maxOutputTokens,
    pricing: {
      currency: 'USD',
      unit: 'per 1M tokens',
      input: entry.pricing.inputPerMillion,
      output: entry.pricing.outputPerMillion,
      cache_read_input: entry.pricing.cacheReadPerMillion,
      cache_write_input: entry.pricing.cacheWritePerMillion,
    },
    capabilities: { ...entry.capabilities },
    aliases: [...aliases],
  };
}

export function listModels(
  entries: readonly ModelEntry[],
  aliases: Readonly<Record<string, string>>,
): JsonObject {
  const aliasesOf = new Map<string, string[]>();
  for (const [alias, target] of Object.entries(aliases)) {
    aliasesOf.set(target, [...(aliasesOf.get(target) ?? []), alias]);
  }
  return {
    object: 'list',
    data: entries.map((entry) => describeModel(entry, aliasesOf.get(entry.name) ?? [])),
  };
}
