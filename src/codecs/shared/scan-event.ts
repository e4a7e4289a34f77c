/**
 * Searches over one SSE event's text as it came, for the pass-through streams that forward events
 * without parsing them: which events carry a field the gateway must read. A search, not a parse: a
 * key is a quoted name followed by a colon, and a name inside a string value has its quotes
 * escaped, so it never matches; a false positive only costs a parse.
 */
import { indexOfQuoted } from './rename-field.ts';

const colon = 0x3a;

/**
 * Whether `text` holds `expected` at `at` (not negative): `text.startsWith(expected, at)`, compared
 * as a slice. V8's `startsWith` compares a character at a time (~2 ns each); string equality
 * compares memory, which matters on a stream's path, where each event is checked against
 * 20–200-character constants.
 */
export function startsAt(text: string, expected: string, at = 0): boolean {
  return text.slice(at, at + expected.length) === expected;
}

function skipSpace(text: string, from: number): number {
  let index = from;
  for (let code = text.charCodeAt(index); code === 0x20 || code === 0x09; code = text.charCodeAt(index))
    index++;
  return index;
}

/**
 * Some key `quotedKey` (`'"usage"'`) in `text` has a value (`nonNull`: other than `null`). Found by
 * its name's tail (`indexOfQuoted`): a search that starts at a quote stops at every quote of the event.
 */
export function hasField(text: string, quotedKey: string, nonNull = false): boolean {
  let at = indexOfQuoted(text, quotedKey);
  while (at !== -1) {
    let index = skipSpace(text, at + quotedKey.length);
    if (text.charCodeAt(index) === colon) {
      index = skipSpace(text, index + 1);
      if (!nonNull || !text.startsWith('null', index)) return true;
    }
    at = indexOfQuoted(text, quotedKey, index);
  }
  return false;
}
