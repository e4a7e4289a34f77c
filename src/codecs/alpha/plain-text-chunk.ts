/**
 * The fast path of A's stream decoder: most chunks of a stream are one choice's text in A's exact
 * wire form, read here with native searches instead of JSON.parse (the decoder's hottest path,
 * apart from the state it keeps).
 */
import { startsAt } from '../shared/scan-event.ts';

/** The fixed parts of a plain text chunk (`plainTextChunk`). */
const choicesOpening = '"choices":[{"index":';
const contentOpening = ',"delta":{"content":"';
const withLogprobs = '"},"logprobs":null,"finish_reason":null}]';
const withoutLogprobs = '"},"finish_reason":null}]';
const nullUsage = ',"usage":null';
const obfuscationOpening = ',"obfuscation":"';
/** What a JSON string's text may hold only escaped (or not at all): such text goes through JSON.parse. */
const needsParser = /["\\\u0000-\u001f]/;

/** The JSON integer `data[start, end)` spells (digits only, no leading zero), else undefined. */
function wholeNumber(data: string, start: number, end: number): number | undefined {
  if (end <= start || end - start > 9 || (data.charCodeAt(start) === 0x30 && end - start > 1))
    return undefined;
  let value = 0;
  for (let at = start; at < end; at++) {
    const digit = data.charCodeAt(at) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** One choice's text, as a plain chunk says it. */
export interface PlainTextChunk {
  index: number;
  text: string;
}

/**
 * A chunk that is one choice's text in A's exact wire form: `{…,"choices":[{"index":N,
 * "delta":{"content":"TEXT"},("logprobs":null,)"finish_reason":null}](,"usage":null)
 * (,"obfuscation":"…")}` with only strings and numbers before `choices`. When TEXT needs no
 * unescaping, that is all the chunk says (the fields before `choices` matter only at the start):
 * its choice index and text, read without JSON.parse; undefined for anything else (the parser's).
 */
export function plainTextChunk(data: string): PlainTextChunk | undefined {
  const at = data.indexOf(choicesOpening);
  // `choices` at the top level: no object or array opens before it.
  if (at <= 0 || data.indexOf('[') !== at + 10 || data.indexOf('{', 1) !== at + 11) return undefined;
  const indexStart = at + choicesOpening.length;
  const indexEnd = data.indexOf(',', indexStart);
  if (indexEnd === -1 || !startsAt(data, contentOpening, indexEnd)) return undefined;
  const index = wholeNumber(data, indexStart, indexEnd);
  if (index === undefined) return undefined;
  const textStart = indexEnd + contentOpening.length;
  const textEnd = data.indexOf('"', textStart);
  if (textEnd === -1) return undefined;
  let rest = textEnd;
  if (startsAt(data, withLogprobs, rest)) rest += withLogprobs.length;
  else if (startsAt(data, withoutLogprobs, rest)) rest += withoutLogprobs.length;
  else return undefined;
  if (data.startsWith(nullUsage, rest)) rest += nullUsage.length;
  if (data.startsWith(obfuscationOpening, rest)) {
    const valueEnd = data.indexOf('"', rest + obfuscationOpening.length);
    if (valueEnd === -1 || needsParser.test(data.slice(rest + obfuscationOpening.length, valueEnd)))
      return undefined;
    rest = valueEnd + 1;
  }
  if (rest !== data.length - 1 || data.charCodeAt(rest) !== 0x7d) return undefined;
  const text = data.slice(textStart, textEnd);
  if (needsParser.test(text)) return undefined;
  return { index, text };
}
