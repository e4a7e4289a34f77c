/**
 * The nesting depth of a JSON text, measured before parsing: a body nested thousands of levels
 * deep would parse, then overflow the stack of whatever walks it. Strings are skipped with native
 * `indexOf`, so the cost is one pass over the brackets and quotes.
 */
const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const openBracket = 0x5b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;

/** True when `text` (JSON, valid or not) nests objects/arrays deeper than `limit`. */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  // Nesting deeper than `limit` needs more than `limit` opening brackets. Most bodies have far
  // fewer, and counting them with native indexOf is several times cheaper than the exact scan.
  if (countOpenings(text, limit) <= limit) return false;
  let depth = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      index = closingQuote(text, index + 1);
      if (index === -1) return false;
    } else if (code === openBrace || code === openBracket) {
      if (++depth > limit) return true;
    } else if (code === closeBrace || code === closeBracket) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that ends the string starting at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at !== -1) {
    let backslashes = 0;
    for (let before = at - 1; before >= from && text.charCodeAt(before) === backslash; before--)
      backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * The `{` and `[` in `text` (strings included), counted up to `limit + 1`: a reader adds the
 * counts of its pieces as they arrive and scans exactly only when the sum passes the limit.
 */
export function countOpenings(text: string, limit: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    let at = text.indexOf(bracket);
    while (at !== -1) {
      if (++count > limit) return count;
      at = text.indexOf(bracket, at + 1);
    }
  }
  return count;
}
