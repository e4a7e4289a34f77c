/** The beta surface's HTTP rules: its one route, where the client key travels, the version header. */
import type { HeaderMap, SurfaceRoute } from '../codec.ts';
import { invalidRequest, type GatewayError } from '../../ir/index.ts';
import { countTokensPath, messagesPath } from './wire.ts';

export function matchRoute(pathname: string): SurfaceRoute | undefined {
  if (pathname === messagesPath) return {};
  return pathname === countTokensPath ? { countTokens: true } : undefined;
}

function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Headers that may carry the key (a repeated one is refused by the server). */
export const credentialHeaders: readonly string[] = ['x-api-key', 'authorization'];

/** Paths no route matches but that look like this surface's: their errors come in B's shape. */
export function resemblesPath(pathname: string): boolean {
  return pathname.startsWith('/v1/messages');
}

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

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The oldest version the family ever published is 2023-01-01; newer clients send later dates. */
const oldestVersion = '2023-01-01';

/** Is `value` a real calendar date (YYYY-MM-DD) on or after 2023-01-01? */
export function isAcceptedVersion(value: string): boolean {
  const match = datePattern.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  // ISO dates of equal length compare correctly as strings.
  return real && value >= oldestVersion;
}

/** The spec's version header, and the family vendor's name for it (what the real SDKs send). */
export const versionHeader = 'beta-version';
export const vendorVersionHeader = 'anthropic-version';

/** The version the client asked for and the header it came in: `beta-version` decides when both are sent. */
export function clientVersion(headers: HeaderMap): { name: string; value: string } | undefined {
  for (const name of [versionHeader, vendorVersionHeader]) {
    const value = header(headers, name);
    if (value !== undefined) return { name, value: value.trim() };
  }
  return undefined;
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

/**
 * The family's beta-features header (the spec does not rename it: see the reference). Its flags
 * switch on upstream features, so same-family traffic forwards it; no other family has one.
 */
export const betaFeaturesHeader = 'anthropic-beta';

/** Feature names: letters, digits, `.`, `_`, `-`. */
const featureName = /^[A-Za-z0-9._-]{1,100}$/;

/** The header's flags as one comma-separated value (repeated headers joined), or undefined when malformed. */
export function betaFeatures(value: string | readonly string[]): string | undefined {
  const names = (typeof value === 'string' ? [value] : value)
    .flatMap((part) => part.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.length > 32 || !names.every((name) => featureName.test(name)))
    return undefined;
  return names.join(',');
}
