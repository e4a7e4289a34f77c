/**
 * The family's protocol headers: the version every request names and the beta-features flags.
 * Wire rules, not routing: the pass-through forwards them, the surface checks them.
 */
import type { HeaderMap } from '../codec.ts';

/** A header's first value. */
export function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
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
