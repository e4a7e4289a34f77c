/** The beta surface's HTTP rules: its one route, where the client key travels, the version header. */
import type { HeaderMap, SurfaceRoute } from '../../codecs/codec.ts';
import { matchDeclaredRoute, type SurfacePath } from '../surface.ts';
import { invalidRequest, type GatewayError } from '../../ir/index.ts';
import { countTokensPath, messagesPath } from '../../codecs/beta/wire.ts';
import {
  betaFeatures,
  betaFeaturesHeader,
  clientVersion,
  header,
  isAcceptedVersion,
  vendorVersionHeader,
  versionHeader,
} from '../../codecs/beta/version-headers.ts';

export const routes: readonly SurfacePath[] = [
  { path: messagesPath, route: {} },
  { path: countTokensPath, route: { countTokens: true } },
];

export function matchRoute(pathname: string): SurfaceRoute | undefined {
  return matchDeclaredRoute(routes, pathname);
}

/** Headers that may carry the key (a repeated one is refused by the server). */
export const credentialHeaders: readonly string[] = ['x-api-key', 'authorization'];

/** Paths no route matches but that look like this surface's: their errors come in B's shape. */
export const unknownPaths: readonly string[] = ['/v1/messages*'];

/** `x-api-key: K`, or `Authorization: Bearer K` (the family's 1.x SDK sends a bearer token). */
export function readClientKey(headers: HeaderMap, _searchParams: URLSearchParams): string | undefined {
  const apiKey = header(headers, 'x-api-key')?.trim();
  if (apiKey !== undefined && apiKey !== '') return apiKey;
  const authorization = header(headers, 'authorization')?.trim();
  if (authorization === undefined || authorization.length <= 7) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const key = authorization.slice(7).trim();
  return key === '' ? undefined : key;
}

export function checkHeaders(headers: HeaderMap): GatewayError | undefined {
  const version = clientVersion(headers);
  if (version === undefined || version.value === '') {
    const name = version?.name ?? `${versionHeader} (or ${vendorVersionHeader})`;
    return invalidRequest(
      `${name}: header is required (for example ${version?.name ?? versionHeader}: 2023-06-01)`,
      version?.name ?? versionHeader,
    );
  }
  if (!isAcceptedVersion(version.value)) {
    return invalidRequest(
      `${version.name}: ${JSON.stringify(version.value.slice(0, 40))} is not a valid version; send a date such as 2023-06-01`,
      version.name,
    );
  }
  const features = headers[betaFeaturesHeader];
  if (features !== undefined && betaFeatures(features) === undefined) {
    return invalidRequest(
      `${betaFeaturesHeader}: send comma-separated feature names such as prompt-caching-2024-07-31`,
      betaFeaturesHeader,
    );
  }
  return undefined;
}
