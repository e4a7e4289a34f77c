/**
 * Family B's model list: `{data:[{type:"model",id,display_name,created_at}],has_more,first_id,
 * last_id}`, paged with `limit` (1–1000, default 20) and `after_id` / `before_id`. B clients are
 * told apart on the shared `/v1/models` path by `x-api-key` or a version header.
 */
import { invalidRequest, type JsonObject } from '../../ir/index.ts';
import type { HeaderMap } from '../../codecs/codec.ts';
import type { ModelInfo, ModelListing } from '../surface.ts';
import { queryInteger, queryText } from '../../codecs/shared/query-params.ts';
import { vendorVersionHeader, versionHeader } from '../../codecs/beta/version-headers.ts';

/** The catalog has no release dates: the epoch, as A's `created: 0`. */
const createdAt = '1970-01-01T00:00:00Z';

function describe(model: ModelInfo): JsonObject {
  return { type: 'model', id: model.name, display_name: model.name, created_at: createdAt };
}

function indexOf(models: readonly ModelInfo[], id: string, parameter: string): number {
  const index = models.findIndex((model) => model.name === id);
  if (index === -1)
    throw invalidRequest(`${parameter}: no model with id ${JSON.stringify(id.slice(0, 100))}`, parameter);
  return index;
}

function list(models: readonly ModelInfo[], searchParams: URLSearchParams): JsonObject {
  const limit = queryInteger(searchParams, 'limit', 1, 1000, 20);
  const afterId = queryText(searchParams, 'after_id');
  const beforeId = queryText(searchParams, 'before_id');
  if (afterId !== undefined && beforeId !== undefined)
    throw invalidRequest('after_id and before_id cannot be used together', 'before_id');
  let start: number;
  let end: number;
  if (beforeId !== undefined) {
    // The page that ends just before `before_id`.
    end = indexOf(models, beforeId, 'before_id');
    start = Math.max(0, end - limit);
  } else {
    start = afterId === undefined ? 0 : indexOf(models, afterId, 'after_id') + 1;
    end = Math.min(models.length, start + limit);
  }
  const page = models.slice(start, end);
  return {
    data: page.map(describe),
    has_more: beforeId === undefined ? end < models.length : start > 0,
    first_id: page[0]?.name ?? null,
    last_id: page.at(-1)?.name ?? null,
  };
}

export const modelListing: ModelListing = {
  paths: ['/v1/models'],
  claims: (headers: HeaderMap) =>
    headers['x-api-key'] !== undefined ||
    headers[versionHeader] !== undefined ||
    headers[vendorVersionHeader] !== undefined,
  list,
  describe,
};
