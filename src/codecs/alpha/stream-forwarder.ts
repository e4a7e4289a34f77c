/**
 * A same-family A stream passed on without parsing its chunks. Every chunk of a stream starts with
 * the same fields before `choices` (id, object, created, model, …): the first chunk's are checked
 * once (only strings and numbers, no `error` or `usage`) and renamed once (`model`), and every
 * chunk that starts with them exactly is forwarded as the renamed start plus its own rest, when
 * its one choice is unfinished and nothing after the choices carries usage. Anything else (the
 * finish, the usage chunk, `[DONE]`, an error, a chunk of another shape) is read.
 */
import type { ResponseContext, StreamForwarder } from '../codec.ts';
import { indexOfQuoted, renameStringField } from '../shared/rename-field.ts';
import { hasField, startsAt } from '../shared/scan-event.ts';

const choicesOpening = '"choices":[';
const unfinished = '"finish_reason":null}]';
const nullUsage = ',"usage":null';
const obfuscation = ',"obfuscation":"';

/** After the choices, only `(,"usage":null)(,"obfuscation":"…")}` and the blank line: its end, else -1. */
function plainTailEnd(events: string, from: number): number {
  let at = from;
  if (events.startsWith(nullUsage, at)) at += nullUsage.length;
  if (events.startsWith(obfuscation, at)) {
    const close = events.indexOf('"', at + obfuscation.length);
    if (close === -1 || events.charCodeAt(close - 1) === 0x5c) return -1;
    at = close + 1;
  }
  return events.startsWith('}\n\n', at) ? at + 3 : -1;
}

class AlphaStreamForwarder implements StreamForwarder {
  readonly #model: string;
  /** The first chunk's text up to its choices (`data: {…,"choices":[`), checked; '' before it. */
  #start = '';
  #renamedStart = '';

  constructor(context: ResponseContext) {
    this.#model = context.model;
  }

  forward(events: string, start: number, write: (text: string) => void): number {
    if ((this.#start === '' || !startsAt(events, this.#start, start)) && !this.#learn(events, start))
      return -1;
    const rest = start + this.#start.length;
    // The first finish_reason is the last choice's, and null: one choice, unfinished.
    const reason = indexOfQuoted(events, '"finish_reason"', rest);
    if (reason === -1 || !startsAt(events, unfinished, reason)) return -1;
    const end = plainTailEnd(events, reason + unfinished.length);
    // One line (the start has no line end): the chunk's first line end is its blank line's.
    if (end === -1 || events.indexOf('\n', rest) !== end - 2) return -1;
    write(this.#renamedStart + events.slice(rest, end));
    return end;
  }

  /** Takes the start of the chunk at `from` as the stream's, when it is plain: strings and numbers, no error or usage. */
  #learn(events: string, from: number): boolean {
    const at = events.indexOf(choicesOpening, from);
    const lineEnd = events.indexOf('\n', from);
    if (at === -1 || !events.startsWith('data: {', from) || lineEnd < at) return false;
    const start = events.slice(from, at + choicesOpening.length);
    // No object or array opens before `choices` (they could hide a field), and none of the fields says more.
    if (start.indexOf('{', 7) !== -1 || start.indexOf('[') !== start.length - 1) return false;
    if (hasField(start, '"error"', true) || hasField(start, '"usage"', true)) return false;
    this.#start = start;
    this.#renamedStart = renameStringField(start, 'model', 1, this.#model, 6);
    return true;
  }
}

export function streamForwarder(context: ResponseContext): StreamForwarder {
  return new AlphaStreamForwarder(context);
}
