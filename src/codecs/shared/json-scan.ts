/**
 * A JSON object's text scanned instead of parsed, for the same-family JSON answers the gateway
 * passes on as they came: it needs a few members (usage, a finish reason, the model to rename),
 * not the whole answer as objects. The scan allocates nothing: it hands each member's key and
 * value position to the caller's reader, which reads what it wants and skips the rest with
 * `valueEnd`. Every value is checked as JSON while it is skipped (strings, escapes, numbers,
 * literals, nesting), so a text a scan accepts is one `JSON.parse` accepts; anything else —
 * invalid JSON, an escaped key, deep nesting — gives -1, and the caller parses the text whole as
 * before. Skipped values are followed with a small stack, not recursion.
 */
import type { JsonValue } from '../../ir/index.ts';

/** Reads the member whose key spans `keyStart`–`keyEnd` (quotes included); returns where its value ends, -1 to give up. */
export type MemberReader = (text: string, keyStart: number, keyEnd: number, valueStart: number) => number;

/** Reads the array element at `start`; returns where it ends, -1 to give up. */
export type ElementReader = (text: string, start: number) => number;

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const comma = 0x2c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const minus = 0x2d;
const plus = 0x2b;
const dot = 0x2e;
const zero = 0x30;
const nine = 0x39;

/** Beyond this the caller parses whole: answers nest far less. */
const maxDepth = 64;

function isDigit(code: number): boolean {
  return code >= zero && code <= nine;
}

function isHex(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`. */
function isSimpleEscape(code: number): boolean {
  return (
    code === quote ||
    code === backslash ||
    code === 0x2f ||
    code === 0x62 ||
    code === 0x66 ||
    code === 0x6e ||
    code === 0x72 ||
    code === 0x74
  );
}

export function skipSpace(text: string, from: number): number {
  let index = from;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return index;
    index++;
  }
}

/**
 * The quoted name whose occurrences in the text the scan counts (`watch`), as a plain search
 * would find them: in valid JSON a `"` is a string's delimiter or an escaped quote, so the name
 * occurs where a string is exactly it, or where an escaped quote is followed by its tail.
 */
let watched = '';
let watchedTail = '';
let watchedCount = 0;

/** Counts `quotedName`'s occurrences in what the next scans read (`watchedOccurrences`). */
export function watch(quotedName: string): void {
  watched = quotedName;
  watchedTail = quotedName.slice(1);
  watchedCount = 0;
}

export function watchedOccurrences(): number {
  return watchedCount;
}

/** Whether the last string `stringEnd` read had an escape in it. */
let escapes = false;

/** Index just past the valid JSON string whose opening quote is at `start`; -1 when it is not one. */
export function stringEnd(text: string, start: number): number {
  const length = text.length;
  escapes = false;
  for (let index = start + 1; index < length; index++) {
    const code = text.charCodeAt(index);
    // Most characters first: everything but a quote, a backslash and control characters.
    if (code > backslash || (code > quote && code < backslash) || code === 0x20 || code === 0x21) continue;
    if (code === quote) {
      if (index + 1 - start === watched.length && text.startsWith(watched, start)) watchedCount++;
      return index + 1;
    }
    if (code !== backslash) return -1;
    escapes = true;
    const escaped = text.charCodeAt(++index);
    if (escaped === 0x75) {
      for (let digit = 1; digit <= 4; digit++) if (!isHex(text.charCodeAt(index + digit))) return -1;
      index += 4;
    } else if (!isSimpleEscape(escaped)) return -1;
    else if (escaped === quote && watched !== '' && text.startsWith(watchedTail, index + 1)) watchedCount++;
  }
  return -1;
}

/** Index just past the valid JSON number at `start`; -1 when it is not one. */
function numberEnd(text: string, start: number): number {
  let index = start;
  if (text.charCodeAt(index) === minus) index++;
  if (text.charCodeAt(index) === zero) index++;
  else if (isDigit(text.charCodeAt(index))) while (isDigit(text.charCodeAt(index))) index++;
  else return -1;
  if (text.charCodeAt(index) === dot) {
    if (!isDigit(text.charCodeAt(++index))) return -1;
    while (isDigit(text.charCodeAt(index))) index++;
  }
  const exponent = text.charCodeAt(index);
  if (exponent === 0x65 || exponent === 0x45) {
    const sign = text.charCodeAt(++index);
    if (sign === plus || sign === minus) index++;
    if (!isDigit(text.charCodeAt(index))) return -1;
    while (isDigit(text.charCodeAt(index))) index++;
  }
  return index;
}

/** Index just past a scalar (string, number, literal) at `start`; -1 when none is there. */
function scalarEnd(text: string, start: number): number {
  const code = text.charCodeAt(start);
  if (code === quote) return stringEnd(text, start);
  if (code === minus || isDigit(code)) return numberEnd(text, start);
  if (code === 0x74) return text.startsWith('true', start) ? start + 4 : -1;
  if (code === 0x66) return text.startsWith('false', start) ? start + 5 : -1;
  if (code === 0x6e) return text.startsWith('null', start) ? start + 4 : -1;
  return -1;
}

/** The closing characters of the containers open in the value being skipped (reused: never reentrant). */
const open = new Uint8Array(maxDepth);

/** Past `"key" :` and the space after it, at `index`; -1 when no key is there. */
function keyThenColon(text: string, index: number): number {
  if (text.charCodeAt(index) !== quote) return -1;
  const end = stringEnd(text, index);
  if (end === -1) return -1;
  const colonAt = skipSpace(text, end);
  return text.charCodeAt(colonAt) === colon ? skipSpace(text, colonAt + 1) : -1;
}

/** Index just past the valid JSON value that starts at `start`; -1 when there is none, or it nests too deep. */
export function valueEnd(text: string, start: number): number {
  let depth = 0;
  let index = start;
  for (;;) {
    // A value starts at `index`.
    const code = text.charCodeAt(index);
    if (code === openBrace || code === openBracket) {
      if (depth === maxDepth) return -1;
      const close = code === openBrace ? closeBrace : closeBracket;
      index = skipSpace(text, index + 1);
      if (text.charCodeAt(index) === close) index++;
      else {
        open[depth++] = close;
        if (close === closeBrace && (index = keyThenColon(text, index)) === -1) return -1;
        continue;
      }
    } else if ((index = scalarEnd(text, index)) === -1) return -1;
    // After a value: a comma and the next one, or the container's end (maybe several).
    for (;;) {
      if (depth === 0) return index;
      index = skipSpace(text, index);
      const next = text.charCodeAt(index);
      const close = open[depth - 1];
      if (next === comma) {
        index = skipSpace(text, index + 1);
        if (close === closeBrace && (index = keyThenColon(text, index)) === -1) return -1;
        break;
      }
      if (next !== close) return -1;
      depth--;
      index++;
    }
  }
}

/**
 * Scans the object at `start` (a `{`), handing each member to `read` (keys must be plain: no
 * escape, so the reader compares them as written); returns the index past its `}`, -1 when it is
 * not a valid object or `read` gave up. Repeated keys are the reader's business: a parser keeps
 * the last, so a reader gives up on a key it reads twice.
 */
export function scanObject(text: string, start: number, read: MemberReader): number {
  if (text.charCodeAt(start) !== openBrace) return -1;
  let index = skipSpace(text, start + 1);
  if (text.charCodeAt(index) === closeBrace) return index + 1;
  for (;;) {
    const keyStart = index;
    if (text.charCodeAt(keyStart) !== quote) return -1;
    const keyEnd = stringEnd(text, keyStart);
    if (keyEnd === -1 || escapes) return -1;
    const colonAt = skipSpace(text, keyEnd);
    if (text.charCodeAt(colonAt) !== colon) return -1;
    const end = read(text, keyStart, keyEnd, skipSpace(text, colonAt + 1));
    if (end === -1) return -1;
    index = skipSpace(text, end);
    const next = text.charCodeAt(index);
    if (next === closeBrace) return index + 1;
    if (next !== comma) return -1;
    index = skipSpace(text, index + 1);
  }
}

/** Scans the array at `start` (a `[`), handing each element to `read`; the index past its `]`, or -1. */
export function scanArray(text: string, start: number, read: ElementReader): number {
  if (text.charCodeAt(start) !== openBracket) return -1;
  let index = skipSpace(text, start + 1);
  if (text.charCodeAt(index) === closeBracket) return index + 1;
  for (;;) {
    const end = read(text, index);
    if (end === -1) return -1;
    index = skipSpace(text, end);
    const next = text.charCodeAt(index);
    if (next === closeBracket) return index + 1;
    if (next !== comma) return -1;
    index = skipSpace(text, index + 1);
  }
}

/** Whether the key spanning `keyStart`–`keyEnd` (quotes included) is `name`. */
export function keyIs(text: string, keyStart: number, keyEnd: number, name: string): boolean {
  return keyEnd - keyStart === name.length + 2 && text.startsWith(name, keyStart + 1);
}

/** The string whose text spans `start`–`end` (a valid JSON string), decoded; escapes parsed only when there are any. */
export function decodedString(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/** The valid JSON value spanning `start`–`end`, as `JSON.parse` reads it (scalars read without a parse). */
export function jsonValue(text: string, start: number, end: number): JsonValue {
  const code = text.charCodeAt(start);
  if (code === minus || isDigit(code)) return Number(text.slice(start, end));
  if (code === quote) return decodedString(text, start, end);
  if (code === 0x74) return true;
  if (code === 0x66) return false;
  if (code === 0x6e) return null;
  return JSON.parse(text.slice(start, end)) as JsonValue;
}
