/**
 * Family C's model list: `{models:[{name:"models/C-1",version,displayName,description,
 * inputTokenLimit,outputTokenLimit,supportedGenerationMethods}],nextPageToken}`, paged with
 * `pageSize` (1–1000, default 50) and the opaque `pageToken`. C clients are told apart on the
 * shared `/v1/models` path by a C credential (`x-gamma-api-key`, `x-goog-api-key`, `?key=`).
 */
import { invalidRequest, type JsonObject } from '../../ir/index.ts';
import type { HeaderMap } from '../../codecs/codec.ts';
import type { ModelInfo, ModelListing } from '../surface.ts';
import { queryInteger, queryText } from '../../codecs/shared/query-params.ts';

function describe(model: ModelInfo): JsonObject {
  return {
    name: `models/${model.name}`,
    baseModelId: model.name,
    // The catalog has no model versions.
    version: '1',
    displayName: model.name,
    description: `${model.name} (${model.family} family) through modelgate`,
    inputTokenLimit: model.contextWindow,
    outputTokenLimit: model.maxOutputTokens,
    supportedGenerationMethods: model.capabilities.streaming
      ? ['generateContent', 'streamGenerateContent', 'countTokens']
      : ['generateContent', 'countTokens'],
  };
}

/** The page token: the last name of the previous page, base64url (opaque to clients). */
function startAfter(models: readonly ModelInfo[], token: string | undefined): number {
  if (token === undefined) return 0;
  const name = Buffer.from(token, 'base64url').toString('utf8');
  const index = models.findIndex((model) => model.name === name);
  if (index === -1) throw invalidRequest('pageToken: not a page token from this list', 'pageToken');
  return index + 1;
}

function list(models: readonly ModelInfo[], searchParams: URLSearchParams): JsonObject {
  const pageSize = queryInteger(searchParams, 'pageSize', 1, 1000, 50);
  const start = startAfter(models, queryText(searchParams, 'pageToken'));
  const page = models.slice(start, start + pageSize);
  const last = page.at(-1);
  const more = start + pageSize < models.length && last !== undefined;
  return more
    ? { models: page.map(describe), nextPageToken: Buffer.from(last.name).toString('base64url') }
    : { models: page.map(describe) };
}

export const modelListing: ModelListing = {
  paths: ['/v1beta/models', '/v1/models'],
  claims: (headers: HeaderMap, searchParams: URLSearchParams) =>
    headers['x-gamma-api-key'] !== undefined ||
    headers['x-goog-api-key'] !== undefined ||
    searchParams.has('key'),
  list,
  describe,
};
