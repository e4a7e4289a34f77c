/**
 * The first of `names` (lower case) that the client sent more than once. node:http keeps only the
 * first `Authorization` and joins repeated custom headers, while a proxy in front may pick another
 * value: an ambiguous credential is refused rather than guessed. Scans `rawHeaders` without
 * allocating (names compared case-insensitively only when the lengths match).
 */
export function repeatedHeader(rawHeaders: readonly string[], names: readonly string[]): string | undefined {
  for (const name of names) {
    let seen = 0;
    for (let index = 0; index < rawHeaders.length; index += 2) {
      const raw = rawHeaders[index] as string;
      if (raw.length === name.length && raw.toLowerCase() === name && ++seen > 1) return name;
    }
  }
  return undefined;
}
