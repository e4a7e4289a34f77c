/**
 * A same-family `chat.completion` read without parsing it whole: one scan of its text
 * (`shared/json-scan.ts`) reads the model's place, the usage's counts and each choice's
 * `finish_reason`, and checks the rest as JSON. Exactly what the whole parse, decode and rewrite
 * give (`pass-through.ts`), or undefined for any answer that is not that plain shape (a repeated
 * key it reads, a choice without a finish reason, a usage to re-encode…): then the gateway parses
 * it whole. The readers share this module's state: one answer is read at a time, synchronously.
 */
import type { JsonObject } from '../../ir/index.ts';
import type { PassedAnswer, ResponseContext } from '../codec.ts';
import {
  decodedString,
  jsonValue,
  keyIs,
  scanArray,
  scanObject,
  skipSpace,
  valueEnd,
  watch,
  watchedOccurrences,
} from '../shared/json-scan.ts';
import { decodeUsage, withFlatCachedTokens } from './usage.ts';

const modelKey = '"model"';

/** What the scan found: where the model's value is, the usage (its counts only), the reasons. */
let modelStart = -1;
let modelEnd = -1;
let modelKeyStart = -1;
let usage: JsonObject | null | undefined;
let reasons: string[] = [];
let choicesSeen = false;
/** The object being filled: the usage, or one of its detail objects. */
let filling: JsonObject = {};
let reasonSeen = false;

export function readAnswer(text: string, context: ResponseContext): PassedAnswer | undefined {
  modelStart = -1;
  usage = undefined;
  reasons = [];
  choicesSeen = false;
  watch(modelKey);
  const end = scanObject(text, skipSpace(text, 0), readMember);
  const occurrences = watchedOccurrences();
  watch('');
  if (end === -1 || skipSpace(text, end) !== text.length || modelStart === -1 || occurrences !== 1)
    return undefined;
  // The spec's flat `cached_tokens` is added by re-encoding the answer: the whole path does it.
  const read = readUsage();
  if (withFlatCachedTokens(read ?? undefined) !== undefined) return undefined;
  const renamed = renameModel(text, context.model);
  return renamed === undefined
    ? undefined
    : { text: renamed, usage: decodeUsage(read), finishReasons: reasons };
}

/** As `renameOnlyTopLevelField`: the value replaced, or undefined when it re-encodes instead. */
function renameModel(text: string, model: string): string | undefined {
  if (text.charCodeAt(modelStart) !== 0x22) return undefined;
  const replacement = JSON.stringify(model);
  if (text.slice(modelStart, modelEnd) !== replacement)
    return text.slice(0, modelStart) + replacement + text.slice(modelEnd);
  // Already the client's name: kept only when written compactly (`"model":"…"`), else re-encoded.
  return modelStart === modelKeyStart + modelKey.length + 1 ? text : undefined;
}

/** The state the readers set, read through functions (the type checker cannot see the readers' writes). */
function readUsage(): JsonObject | null | undefined {
  return usage;
}

function choiceHadReason(): boolean {
  return reasonSeen;
}

function readMember(text: string, keyStart: number, keyEnd: number, valueStart: number): number {
  if (keyIs(text, keyStart, keyEnd, 'model')) {
    if (modelStart !== -1) return -1;
    modelKeyStart = keyStart;
    modelStart = valueStart;
    modelEnd = valueEnd(text, valueStart);
    return modelEnd;
  }
  if (keyIs(text, keyStart, keyEnd, 'usage')) {
    if (usage !== undefined) return -1;
    if (text.charCodeAt(valueStart) !== 0x7b) {
      usage = null; // Not an object: the decoder reads no usage.
      return valueEnd(text, valueStart);
    }
    usage = filling = {};
    return scanObject(text, valueStart, readUsageMember);
  }
  if (keyIs(text, keyStart, keyEnd, 'choices')) {
    if (choicesSeen) return -1;
    choicesSeen = true;
    // Not an array: the decoder reads no choices.
    if (text.charCodeAt(valueStart) !== 0x5b) return valueEnd(text, valueStart);
    return scanArray(text, valueStart, readChoice);
  }
  return valueEnd(text, valueStart);
}

/** What `decodeUsage` and `withFlatCachedTokens` read of a usage object and its two detail objects. */
const counts = [
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
const details = ['prompt_tokens_details', 'completion_tokens_details'] as const;

function readUsageMember(text: string, keyStart: number, keyEnd: number, valueStart: number): number {
  for (const name of details) {
    if (!keyIs(text, keyStart, keyEnd, name)) continue;
    const usageObject = filling;
    if (Object.hasOwn(usageObject, name)) return -1;
    if (text.charCodeAt(valueStart) !== 0x7b) return readCount(text, valueStart, name);
    usageObject[name] = filling = {};
    const end = scanObject(text, valueStart, readDetail);
    filling = usageObject;
    return end;
  }
  return readDetail(text, keyStart, keyEnd, valueStart);
}

function readDetail(text: string, keyStart: number, keyEnd: number, valueStart: number): number {
  for (const name of counts) {
    if (!keyIs(text, keyStart, keyEnd, name)) continue;
    if (Object.hasOwn(filling, name)) return -1;
    return readCount(text, valueStart, name);
  }
  return valueEnd(text, valueStart);
}

function readCount(text: string, valueStart: number, name: string): number {
  const end = valueEnd(text, valueStart);
  if (end !== -1) filling[name] = jsonValue(text, valueStart, end);
  return end;
}

/** A choice: an object whose `finish_reason` is a string (else its reason hangs on its tool calls: left to the decoder). */
function readChoice(text: string, start: number): number {
  reasonSeen = false;
  const end = scanObject(text, start, readChoiceMember);
  return choiceHadReason() ? end : -1;
}

function readChoiceMember(text: string, keyStart: number, keyEnd: number, valueStart: number): number {
  if (!keyIs(text, keyStart, keyEnd, 'finish_reason')) return valueEnd(text, valueStart);
  if (reasonSeen || text.charCodeAt(valueStart) !== 0x22) return -1;
  reasonSeen = true;
  const end = valueEnd(text, valueStart);
  if (end !== -1) reasons.push(decodedString(text, valueStart, end));
  return end;
}
