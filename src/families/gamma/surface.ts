/** Family C surface routing: the model and the streaming switch live in the path, the key in a header or `?key=`. */
import type { GatewayError } from '../../ir/index.ts';
import type { HeaderMap, SurfaceRoute } from '../codec.ts';

/** The family's SDK defaults to `/v1beta/`; the spec names `/v1/`. Both are served. */
const prefixes = ['/v1/models/', '/v1beta/models/'] as const;

export function matchRoute(pathname: string): SurfaceRoute | undefined {
  const prefix = prefixes.find((candidate) => pathname.startsWith(candidate));
  if (prefix === undefined) return undefined;
  const rest = pathname.slice(prefix.length);
  // The method follows the LAST ':' so model names that contain ':' (percent-encoded or not) still work.
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const method = rest.slice(colon + 1);
  if (method !== 'generateContent' && method !== 'streamGenerateContent') return undefined;
  let model: string;
  try {
    model = decodeURIComponent(rest.slice(0, colon));
  } catch {
    return undefined;
  }
  if (model === '') return undefined;
  return { model, stream: method === 'streamGenerateContent' };
}

export function readClientKey(headers: HeaderMap, searchParams: URLSearchParams): string | undefined {
  const header = headers['x-gamma-api-key'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value !== '') return value;
  const key = searchParams.get('key');
  return key === null || key === '' ? undefined : key;
}

/** Family C has no required headers besides the key. */
export function checkHeaders(_headers: HeaderMap): GatewayError | undefined {
  return undefined;
}
