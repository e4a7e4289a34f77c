/** `GET /v1/models` in Family A's list shape, with the catalog's figures as extra fields. */
import type { IncomingMessage } from 'node:http';
import type { ModelEntry } from '../config/catalog.ts';
import type { Config } from '../config/config.ts';
import { codecs } from '../families/registry.ts';
import type { ModelResolver } from '../gateway/resolve-model.ts';
import { GatewayError, type JsonObject } from '../ir/index.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { Answer } from './admin-route.ts';

export interface ModelsRouteDependencies {
  keys: ClientKeys;
  models: ModelResolver;
  aliases: Config['aliases'];
  /** Unix milliseconds (key expiry). */
  clock: () => number;
}

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

export function modelsRoute(
  request: IncomingMessage,
  pathname: string,
  search: URLSearchParams,
  dependencies: ModelsRouteDependencies,
  answer: Answer,
): void {
  const alpha = codecs.alpha;
  const fail = (error: GatewayError): void => {
    const wire = alpha.encodeError(error);
    answer(wire.status, wire.body);
  };
  if (
    dependencies.keys.authenticate(alpha.readClientKey(request.headers, search), dependencies.clock()) ===
    undefined
  ) {
    fail(new GatewayError('authentication', 'Invalid or missing API key'));
    return;
  }
  const entries = dependencies.models.list();
  const listing = listModels(entries, dependencies.aliases);
  if (pathname === '/v1/models') {
    answer(200, listing);
    return;
  }
  const name = safeDecode(pathname.slice('/v1/models/'.length));
  const entry = dependencies.models.resolve(name);
  if (entry === undefined) {
    fail(new GatewayError('not_found', `The model \`${name}\` does not exist`));
    return;
  }
  answer(200, describeModel(entry, []));
}

/** A malformed `%` escape is a client mistake, not an exception. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
