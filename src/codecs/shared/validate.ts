/**
 * Field readers for request decoders: each returns the typed value or throws a 400 that names the
 * field, so every surface reports bad input the same way, in its own shape.
 */
import {
  GatewayError,
  invalidRequest,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from '../../ir/index.ts';

export function requireObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw invalidRequest(`${path}: expected an object`, path);
  return value;
}

export function requireArray(value: unknown, path: string): JsonValue[] {
  if (!Array.isArray(value)) throw invalidRequest(`${path}: expected an array`, path);
  return value as JsonValue[];
}

export function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${path}: expected a string`, path);
  return value;
}

export function optionalString(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, path);
}

export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(`${path}: expected a boolean`, path);
  return value;
}

/** A finite number within [min, max], or undefined when absent/null. */
export function optionalNumber(value: unknown, path: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalidRequest(`${path}: expected a number`, path);
  }
  if (value < min || value > max) throw invalidRequest(`${path}: ${value} is outside [${min}, ${max}]`, path);
  return value;
}

/** A whole number within [min, max], or undefined when absent/null. */
export function optionalInteger(value: unknown, path: string, min: number, max: number): number | undefined {
  const number = optionalNumber(value, path, min, max);
  if (number !== undefined && !Number.isInteger(number)) {
    throw invalidRequest(`${path}: expected an integer`, path);
  }
  return number;
}

/** A string or a list of strings (A `stop`), as a list; undefined when absent. */
export function optionalStringList(value: unknown, path: string, maxItems: number): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? [value] : requireArray(value, path);
  if (list.length > maxItems) throw invalidRequest(`${path}: at most ${maxItems} items are allowed`, path);
  return list.map((item, index) => requireString(item, `${path}[${index}]`));
}

/** Parse JSON text that must hold an object (tool arguments); throws a 400 naming `path`. */
export function parseJsonObject(text: string, path: string): JsonObject {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest(`${path}: not valid JSON`, path);
  }
  if (!isJsonObject(value)) throw invalidRequest(`${path}: expected a JSON object`, path);
  return value;
}

/** Copy the fields of `body` not in `known` (family-only knobs kept for same-family upstreams). */
export function unknownFields(body: JsonObject, known: ReadonlySet<string>): JsonObject {
  const rest: JsonObject = {};
  for (const key of Object.keys(body)) {
    if (!known.has(key)) rest[key] = body[key] as JsonValue;
  }
  return rest;
}

/**
 * Tool-call arguments an UPSTREAM produced (IR JSON text) as the object B and C need. Text that is
 * not a JSON object is the upstream's fault (an A model can emit broken JSON): reported as an
 * upstream error rather than guessed at.
 */
export function upstreamToolArguments(text: string): JsonObject {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isJsonObject(value)) {
    throw new GatewayError(
      'upstream',
      'the upstream returned tool-call arguments that are not a JSON object',
    );
  }
  return value;
}
