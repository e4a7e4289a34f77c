/**
 * The one place upstream error text is made safe for a client: all three families, HTTP error
 * bodies and in-stream error events alike. The family codecs decode an upstream error into a
 * `GatewayError`; this decides what of its text a client may read. (An upstream 400 quoting its
 * key in upper case, or without its `sk-` prefix, its base URL and an internal URL once reached
 * clients verbatim, only the exact key string removed.)
 *
 * - 5xx answers and server-side kinds (internal, overloaded, unavailable, timeout, upstream) show
 *   no upstream text at all: a generic message with the status class.
 * - Other messages keep the upstream's words, with these replaced: every configured secret in
 *   any case, and any word sharing 8 consecutive characters with one (a key without its `sk-`,
 *   `sk-ant-` or `AIza` prefix, or a part of it); the configured upstream base URLs and hosts;
 *   every URL; private, loopback and link-local addresses and `localhost`; whatever looks like a
 *   credential (`Bearer …`, 24 or more characters mixing letters and digits).
 * - What remains is cut at 400 characters: upstream errors are sentences.
 *
 * The text is cut to `maxScannedChars` BEFORE any pattern runs (an upstream 400 quoting a
 * 120,000-character client field once held the event loop 3.4 s in the URL pattern), and every
 * pattern is linear: a scheme is at most 32 characters, so `a.a.a.…` is not rescanned per start.
 */
import { GatewayError, type GatewayErrorKind } from '../ir/index.ts';

export interface UpstreamErrorScrubber {
  /** The error as a client may read it; `status`: the upstream's HTTP status, when there is one. */
  scrub(error: GatewayError, status?: number): GatewayError;
  /** Any upstream text with keys, hosts, URLs and addresses replaced (for the operator's log). */
  clean(text: string): string;
}

const serverSide: Partial<Record<GatewayErrorKind, string>> = {
  internal: 'the upstream failed',
  overloaded: 'the upstream is overloaded',
  unavailable: 'the upstream is unavailable',
  timeout: 'the upstream timed out',
  upstream: 'the upstream failed',
};

/** Shared runs this long with a secret mark a word as part of it. */
const gram = 8;
const maxMessageChars = 400;
/**
 * What the patterns ever see. Scrubbing shortens text (a URL becomes `[url]`), so more than the
 * 400 shown is scanned; the word cut at this edge is dropped so no secret is scanned in part.
 */
export const maxScannedChars = 4 * maxMessageChars;

/** RFC 3986 schemes are short; bounding the scheme keeps a run of `a.a.a.…` from being rescanned per start. */
const urlPattern = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>`)\]]+/gi;
const addressPatterns = [
  /\b(?:10|127)(?:\.\d{1,3}){3}(?::\d+)?\b/g,
  /\b192\.168(?:\.\d{1,3}){2}(?::\d+)?\b/g,
  /\b172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}(?::\d+)?\b/g,
  /\b169\.254(?:\.\d{1,3}){2}(?::\d+)?\b/g,
  /\b0\.0\.0\.0(?::\d+)?\b/g,
  /\blocalhost(?::\d+)?\b/gi,
  /\[(?:::1|f[cd][0-9a-f]{2}:[0-9a-f:]*|fe80:[0-9a-f:]*)\](?::\d+)?/gi,
  /(?<![\w:])(?:::1|f[cd][0-9a-f]{2}:[0-9a-f:]+|fe80:[0-9a-f:]+)(?![\w:])/gi,
];
const credentialPatterns = [/\bbearer\s+\S+/gi, /(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{24,}(?![\w-])/gi];
const wordPattern = /[^\s"'`,;()[\]{}<>]+/g;

export function createUpstreamErrorScrubber(
  secrets: readonly string[],
  baseUrls: readonly string[],
): UpstreamErrorScrubber {
  const grams = new Set<string>();
  const exact: RegExp[] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < 4) continue;
    exact.push(new RegExp(escape(secret), 'gi'));
    const lower = secret.toLowerCase();
    for (let index = 0; index + gram <= lower.length; index++) grams.add(lower.slice(index, index + gram));
  }
  const hosts = new Set<string>();
  for (const base of baseUrls) {
    try {
      const url = new URL(base);
      hosts.add(url.host);
      hosts.add(url.hostname.replace(/^\[|\]$/g, ''));
    } catch {
      // Not a URL: configuration validation refuses those; nothing to hide.
    }
  }
  const hostPatterns = [...hosts]
    .filter((host) => host.length > 0)
    .sort((left, right) => right.length - left.length)
    .map((host) => new RegExp(escape(host), 'gi'));

  const clean = (message: string): string => {
    let text = boundedForScanning(message);
    for (const pattern of exact) text = text.replace(pattern, '[redacted]');
    // A sentence's own punctuation after a URL stays.
    text = text.replace(urlPattern, (url) => `[url]${trailingPunctuation(url)}`);
    for (const pattern of hostPatterns) text = text.replace(pattern, '[upstream]');
    for (const pattern of addressPatterns) text = text.replace(pattern, '[address]');
    if (grams.size > 0)
      text = text.replace(wordPattern, (word) =>
        sharesRun(word.toLowerCase(), grams) ? '[redacted]' : word,
      );
    for (const pattern of credentialPatterns) text = text.replace(pattern, '[redacted]');
    const cut = message.length > maxScannedChars || text.length > maxMessageChars;
    return cut ? `${text.slice(0, maxMessageChars)}…` : text;
  };

  return {
    clean,
    scrub(error, status) {
      const generic = serverSide[error.kind];
      const hidden = generic !== undefined || (status !== undefined && status >= 500);
      const message = hidden
        ? `${generic ?? 'the upstream failed'}${status === undefined ? '' : ` (HTTP ${Math.floor(status / 100)}xx)`}`
        : clean(error.message);
      if (message === error.message) return error;
      return new GatewayError(error.kind, message, {
        ...(error.param === undefined ? {} : { param: error.param }),
        ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
        ...(error.code === undefined ? {} : { code: error.code }),
      });
    },
  };
}

/** The first `maxScannedChars`, less the word the cut went through (it may be part of a secret). */
function boundedForScanning(message: string): string {
  if (message.length <= maxScannedChars) return message;
  const head = message.slice(0, maxScannedChars);
  let end = head.length;
  while (end > 0 && !/\s/.test(head.charAt(end - 1))) end--;
  return head.slice(0, end);
}

/** A sentence's punctuation after a URL (`.`, `,` …), found without a backtracking pattern. */
function trailingPunctuation(url: string): string {
  let start = url.length;
  while (start > 0 && '.,;:!?'.includes(url.charAt(start - 1))) start--;
  return url.slice(start);
}

function sharesRun(word: string, grams: ReadonlySet<string>): boolean {
  for (let index = 0; index + gram <= word.length; index++)
    if (grams.has(word.slice(index, index + gram))) return true;
  return false;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
