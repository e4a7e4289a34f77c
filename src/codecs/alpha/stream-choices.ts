/**
 * What A's stream decoder keeps per choice: its blocks (text, tool calls by their `index`), which
 * are open, and how a tool-call fragment finds the call it continues.
 */
import type { JsonObject } from '../../ir/index.ts';

export interface ChoiceState {
  nextBlock: number;
  /** The choice's text block, or -1 before the first non-empty content. */
  textBlock: number;
  /** A tool-call `index` (or a synthetic key for servers that omit it) → its IR block. */
  toolBlocks: Map<number, ToolBlock>;
  /** Key of the call that fragments without an `index` continue. */
  lastToolKey: number;
  /** Blocks to close at finish, in opening order. */
  open: Array<{ kind: 'text' | 'tool'; index: number }>;
  finished: boolean;
}

export interface ToolBlock {
  index: number;
  /** Arguments so far (kept while open, to tell when they form complete JSON). */
  args: string;
  closed: boolean;
}

/** A choice before its first block. */
export function newChoiceState(): ChoiceState {
  return { nextBlock: 0, textBlock: -1, toolBlocks: new Map(), lastToolKey: -1, open: [], finished: false };
}

/** Synthetic keys for index-less tool fragments, far from any real A `index`. */
const syntheticKeyBase = 1_000_000;
/** The key of the legacy `function_call` (one per choice). */
export const legacyKey = -2;

/** Arguments that already parse: a call the next call's start may close. */
export function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The key a fragment continues: its `index`, or (servers that omit it) a new call per `id`. */
export function toolKey(choice: ChoiceState, fragment: JsonObject): number {
  if (typeof fragment.index === 'number') return fragment.index;
  const hasId = typeof fragment.id === 'string' && fragment.id !== '';
  return hasId || choice.lastToolKey === -1 ? syntheticKeyBase + choice.toolBlocks.size : choice.lastToolKey;
}
