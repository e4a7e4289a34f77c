/**
 * Tool arguments the user spelled out: `<tool name> {…JSON object…}` in the last user message makes
 * the simulated model call that tool with exactly that object. This is how a test steers a client
 * that cannot send `x-simulate-*` headers (an agent CLI) into a meaningful tool call, e.g.
 * `Read {"file_path":"/tmp/notes.txt"}`; without it the arguments are sampled from the schema.
 */
import { isJsonObject, type JsonObject } from '../ir/index.ts';

/** Longer objects are not looked for: a steering prompt is short. */
const maxObjectChars = 4096;

export function promptedArguments(text: string, toolName: string): JsonObject | undefined {
  if (toolName === '') return undefined;
  const marker = `${toolName} {`;
  let at = text.indexOf(marker);
  while (at !== -1) {
    const start = at + marker.length - 1;
    const end = objectEnd(text, start);
    if (end !== undefined) {
      const parsed = parseObject(text.slice(start, end));
      if (parsed !== undefined) return parsed;
    }
    at = text.indexOf(marker, at + 1);
  }
  return undefined;
}

/** The index just past the `}` that closes the `{` at `start`, skipping brackets inside strings. */
function objectEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  const limit = Math.min(text.length, start + maxObjectChars);
  for (let index = start; index < limit; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index + 1;
  }
  return undefined;
}

function parseObject(json: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
