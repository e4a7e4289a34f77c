/** Family C surface routing: the model and the streaming switch live in the path, the key in a header or `?key=`. */
import type { GatewayError } from '../../ir/index.ts';
import type { HeaderMap, SurfaceRoute } from '../../codecs/codec.ts';
import type { SurfacePath } from '../surface.ts';

/** The family's SDK defaults to `/v1beta/`; the spec names `/v1/`. Both are served. */
const prefixes = ['/v1/models/', '/v1beta/models/'] as const;

/** `{prefix}{model}:{method}`: the model may hold `/` and `:`, so the path is read whole. */
function routeOf(pathname: string): SurfaceRoute | undefined {
  const prefix = prefixes.find((candidate) => pathname.startsWith(candidate));
  if (prefix === undefined) return undefined;
  const rest = pathname.slice(prefix.length);
  // The method follows the LAST ':' so model names that contain ':' (percent-encoded or not) still work.
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const method = rest.slice(colon + 1);
  if (method !== 'generateContent' && method !== 'streamGenerateContent' && method !== 'countTokens')
    return undefined;
  let model: string;
  try {
    model = decodeURIComponent(rest.slice(0, colon));
  } catch {
    return undefined;
  }
  if (model === '') return undefined;
  if (method === 'countTokens') return { model, countTokens: true };
  return { model, stream: method === 'streamGenerateContent' };
}

/** Every path under the prefixes is a row; its model and method are read from the whole path. */
export const routes: readonly SurfacePath[] = prefixes.map((prefix) => ({
  path: `${prefix}*`,
  route: routeOf,
}));

/** The key headers, spec's first: `x-gamma-api-key`, then the vendor SDKs' `x-goog-api-key`. */
const keyHeaders = ['x-gamma-api-key', 'x-goog-api-key'] as const;

/** Headers that may carry the key (a repeated one is refused by the server). */
export const credentialHeaders: readonly string[] = [...keyHeaders, 'authorization'];

/** The key from `x-gamma-api-key`, `x-goog-api-key`, `Authorization: Bearer` (the family's CLI) or `?key=`. */
export function readClientKey(headers: HeaderMap, searchParams: URLSearchParams): string | undefined {
  for (const name of keyHeaders) {
    const header = headers[name];
    const value = (Array.isArray(header) ? header[0] : header)?.trim();
    if (value !== undefined && value !== '') return value;
  }
  const bearer = bearerToken(headers.authorization);
  if (bearer !== undefined) return bearer;
  const key = searchParams.get('key');
  return key === null || key === '' ? undefined : key;
}

function bearerToken(raw: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || value.length <= 7 || value.slice(0, 7).toLowerCase() !== 'bearer ')
    return undefined;
  const token = value.slice(7).trim();
  return token === '' ? undefined : token;
}

/** Paths no route matches but that look like this surface's: their errors come in C's shape. */
export const unknownPaths: readonly string[] = ['/v1beta/*', '/v1/models/*'];

/** Family C has no required headers besides the key. */
export function checkHeaders(_headers: HeaderMap): GatewayError | undefined {
  return undefined;
}
