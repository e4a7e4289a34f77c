/** The one statement of what an upstream base URL may be (a family's, a deployment's, a provider's). */
import { z } from 'zod';

/** The part before `/v1`: http(s), no query, no fragment (paths are appended to it). */
export const httpBaseUrl = z
  .url()
  .regex(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, 'an http(s) URL without query or fragment');

/** A base URL as the gateway joins paths to it: trailing slashes dropped. */
export const joinableBaseUrl = httpBaseUrl.transform(withoutTrailingSlashes);

export function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}
