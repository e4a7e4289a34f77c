/**
 * The nesting depth of a JSON text, measured on the raw bytes before parsing: a body nested
 * thousands of levels deep would parse, then overflow the stack of whatever walks it. Strings are
 * skipped with native `indexOf`, so the cost is one pass over the brackets and quotes.
 */
const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const openBracket = 0x5b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;

/** True when `text` (JSON bytes, valid or not) nests objects/arrays deeper than `limit`. */
export function exceedsJsonDepth(text: Uint8Array, limit: number): boolean {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  // Nesting deeper than `limit` needs more than `limit` opening brackets. Most bodies have far
  // fewer, and counting them with native indexOf is several times cheaper than the exact scan.
  if (!hasMoreThan(bytes, openBrace, openBracket, limit)) return false;
  let depth = 0;
  const length = bytes.length;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === quote) {
      index = closingQuote(bytes, index + 1);
      if (index === -1) return false;
    } else if (byte === openBrace || byte === openBracket) {
      if (++depth > limit) return true;
    } else if (byte === closeBrace || byte === closeBracket) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that ends the string starting at `from`, or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  let at = bytes.indexOf(quote, from);
  while (at !== -1) {
    let backslashes = 0;
    for (let before = at - 1; before >= from && bytes[before] === backslash; before--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = bytes.indexOf(quote, at + 1);
  }
  return -1;
}

/** True when `bytes` holds more than `limit` bytes equal to `first` or `second` (strings included). */
function hasMoreThan(bytes: Buffer, first: number, second: number, limit: number): boolean {
  let count = 0;
  for (const byte of [first, second]) {
    let at = bytes.indexOf(byte);
    while (at !== -1) {
      if (++count > limit) return true;
      at = bytes.indexOf(byte, at + 1);
    }
  }
  return false;
}
