/**
 * Replaces one string field of a JSON text without parsing and re-encoding it: the pass-through
 * streams name the model the client asked for, whatever id the upstream answered with (real
 * providers answer dated ids), at the cost of scanning the text up to that field.
 */

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Index just past the string that starts at `start` (a quote), or -1 when it never ends. */
function endOfString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === backslash) index++;
    else if (code === quote) return index + 1;
  }
  return -1;
}

/**
 * `text.indexOf(quotedKey, from)`, found faster: searching for a pattern that starts with `"` stops
 * at every quote of a JSON text (one every few characters), so the search is for the name and its
 * closing quote, and a match counts when a quote comes just before it. The same index.
 */
export function indexOfQuoted(text: string, quotedKey: string, from = 0): number {
  const tail = quotedKey.slice(1);
  let at = text.indexOf(tail, from + 1);
  while (at !== -1 && text.charCodeAt(at - 1) !== quote) at = text.indexOf(tail, at + 1);
  return at === -1 ? -1 : at - 1;
}

function skipSpace(text: string, index: number): number {
  let at = index;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/**
 * `text` with the first string value of key `key` at object nesting `depth` (1: the top-level
 * object) replaced by `value`; `text` itself when there is no such string field or it already says
 * `value`. Keys and values inside strings are never matched (escapes are honoured). The JSON starts
 * at `from` (an SSE event's `data: ` before it is kept as it is, without slicing it off).
 */
export function renameStringField(text: string, key: string, depth: number, value: string, from = 0): string {
  return renameQuotedField(text, JSON.stringify(key), depth, value, from);
}

function renameQuotedField(
  text: string,
  quotedKey: string,
  depth: number,
  value: string,
  from: number,
): string {
  if (depth === 1) {
    const at = topLevelKeyAt(text, quotedKey, from);
    if (at !== -1) return replaceStringValue(text, at + quotedKey.length, value);
  }
  let level = 0;
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      const end = endOfString(text, index);
      if (end === -1) return text;
      // A key is a string followed by ':'; only a key at the wanted depth can match.
      const afterKey = skipSpace(text, end);
      if (text.charCodeAt(afterKey) === colon) {
        if (level === depth && end - index === quotedKey.length && text.startsWith(quotedKey, index)) {
          return replaceStringValue(text, end, value);
        }
        index = afterKey;
      } else index = end - 1;
    } else if (code === openBrace || code === openBracket) level++;
    else if (code === closeBrace || code === closeBracket) level--;
  }
  return text;
}

/** `text` with the string value of the key that ends at `keyEnd` set to `value` (unchanged when it is not a string). */
function replaceStringValue(text: string, keyEnd: number, value: string): string {
  const afterKey = skipSpace(text, keyEnd);
  const valueStart = skipSpace(text, afterKey + 1);
  if (text.charCodeAt(valueStart) !== quote) return text;
  const valueEnd = endOfString(text, valueStart);
  if (valueEnd === -1) return text;
  const replacement = JSON.stringify(value);
  if (text.slice(valueStart, valueEnd) === replacement) return text;
  return text.slice(0, valueStart) + replacement + text.slice(valueEnd);
}

/**
 * Where `quotedKey` is a key of the top-level object, found with native searches instead of a scan:
 * its first occurrence, when no object or array opens before it (so it is at depth 1), its opening
 * quote is not escaped and a colon follows. An unescaped `"key"` is always a whole string token
 * (JSON strings cannot hold a bare quote), and a string followed by a colon is a key. -1 when this
 * cannot tell (a `{` or `[` inside an earlier string value, say): the caller scans.
 */
function topLevelKeyAt(text: string, quotedKey: string, from: number): number {
  const at = indexOfQuoted(text, quotedKey, from);
  if (at <= from || text.charCodeAt(from) !== openBrace || text.charCodeAt(at - 1) === backslash) return -1;
  const brace = text.indexOf('{', from + 1);
  const bracket = text.indexOf('[', from);
  if ((brace !== -1 && brace < at) || (bracket !== -1 && bracket < at)) return -1;
  return text.charCodeAt(skipSpace(text, at + quotedKey.length)) === colon ? at : -1;
}

/**
 * `text` with its one top-level string field `key` (`"key"` occurs once in the whole text) set to
 * `value`; undefined when that cannot be done in place (no such field, or the name occurs again,
 * maybe as a duplicate key that a parser would read instead).
 */
export function renameOnlyTopLevelField(text: string, key: string, value: string): string | undefined {
  const quotedKey = JSON.stringify(key);
  const first = indexOfQuoted(text, quotedKey);
  if (first === -1 || indexOfQuoted(text, quotedKey, first + quotedKey.length) !== -1) return undefined;
  const renamed = renameQuotedField(text, quotedKey, 1, value, 0);
  // Unchanged: the field is not a top-level string, unless it already said `value`.
  return renamed !== text || text.includes(`${quotedKey}:${JSON.stringify(value)}`) ? renamed : undefined;
}
