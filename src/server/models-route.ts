/**
 * `GET` model lists and single models in the caller's family shape. Each family names its list
 * paths and the marks of its clients (`ModelListing`): each path is a row of the route table
 * (`surface-rows.ts`), `{path}/*` one model; on a path several families share (`/v1/models`) the
 * first family that claims the request answers, else the default shape. Only the models the key
 * may use are listed or described.
 */
import type { IncomingMessage } from 'node:http';
import type { ModelEntry } from '../config/catalog.ts';
import type { Config } from '../config/config.ts';
import type { FamilyCodec, ModelInfo } from '../surfaces/surface.ts';
import type { ModelResolver } from '../gateway/resolve-model.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError, invalidRequest } from '../ir/index.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import { methodNotAllowed, pathOf, type Answer } from './answers.ts';
import { repeatedHeader } from './repeated-header.ts';

export interface ModelsRouteDependencies {
  keys: ClientKeys;
  models: ModelResolver;
  aliases: Config['aliases'];
  /** Unix milliseconds (key expiry). */
  clock: () => number;
}

/** A models path: the family that answers it and the model id in it ('' for the list). */
export interface ModelsPath {
  codec: FamilyCodec;
  id: string;
}

export type ModelsRoute = (
  request: IncomingMessage,
  path: ModelsPath,
  searchParams: URLSearchParams,
  answer: Answer,
  baseHeaders: ResponseHeaders,
  /** The answer's id, for error bodies that carry it. */
  requestId: string,
) => void;

export function createModelsRoute(dependencies: ModelsRouteDependencies): ModelsRoute {
  const aliasesOf = new Map<string, string[]>();
  for (const [alias, target] of Object.entries(dependencies.aliases)) {
    aliasesOf.set(target, [...(aliasesOf.get(target) ?? []), alias]);
  }
  const info = (entry: ModelEntry): ModelInfo => ({ ...entry, aliases: aliasesOf.get(entry.name) ?? [] });
  // The catalog does not change while the gateway runs.
  const catalog = dependencies.models.list().map(info);

  return (request, { codec, id }, searchParams, answer, baseHeaders, requestId) => {
    const fail = (error: GatewayError): void => {
      const wire = codec.encodeError(error, requestId);
      answer(wire.status, wire.body, { ...baseHeaders, ...wire.headers });
    };
    if (request.method !== 'GET') {
      methodNotAllowed(codec, request.method, pathOf(request.url), 'GET', answer, baseHeaders, requestId);
      return;
    }
    const repeated = repeatedHeader(request.rawHeaders, codec.credentialHeaders);
    if (repeated !== undefined) {
      fail(invalidRequest(`${repeated}: send this header once`, repeated));
      return;
    }
    const key = dependencies.keys.authenticate(
      codec.readClientKey(request.headers, searchParams),
      dependencies.clock(),
    );
    if (key === undefined) {
      fail(new GatewayError('authentication', 'Invalid or missing API key'));
      return;
    }
    const allowed = (name: string): boolean => key.models === undefined || key.models.has(name);
    try {
      if (id === '') {
        answer(
          200,
          codec.modelListing.list(
            key.models === undefined ? catalog : catalog.filter((model) => allowed(model.name)),
            searchParams,
          ),
        );
        return;
      }
      const name = safeDecode(id);
      const entry = dependencies.models.resolve(name);
      if (entry === undefined || !allowed(entry.name)) {
        fail(
          new GatewayError(
            'not_found',
            `The model \`${name.slice(0, 200)}\` does not exist or is not available to this key`,
            { param: 'model' },
          ),
        );
        return;
      }
      answer(200, codec.modelListing.describe(info(entry)));
    } catch (error) {
      if (error instanceof GatewayError) fail(error);
      else throw error;
    }
  };
}

/** A malformed `%` escape is a client mistake, not an exception. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
