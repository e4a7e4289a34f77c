/**
 * Tool-call arguments made up from the tool's JSON Schema, the same way every time: strings
 * `"sample <property>"`, numbers 1, booleans true, enums their first value, arrays one item,
 * objects every declared property. Enough for a client to exercise its tool-dispatch code.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/index.ts';

/** Schemas can be recursive or absurdly deep; a sample never needs more than this. */
const maxDepth = 8;

export function sampleArguments(schema: JsonObject): JsonObject {
  const value = sampleValue(schema, 'value', 0);
  return isJsonObject(value) ? value : {};
}

function sampleValue(schema: JsonObject, name: string, depth: number): JsonValue {
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0] ?? null;
  if ('const' in schema) return schema['const'] ?? null;
  const alternative = firstAlternative(schema);
  if (alternative !== undefined) return sampleValue(alternative, name, depth);
  switch (schemaType(schema)) {
    case 'object':
      return depth >= maxDepth ? {} : sampleObject(schema, depth);
    case 'array':
      return depth >= maxDepth ? [] : [sampleValue(itemsSchema(schema), name, depth + 1)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case undefined:
    default:
      return `sample ${name}`;
  }
}

function sampleObject(schema: JsonObject, depth: number): JsonObject {
  const result: JsonObject = {};
  const properties = schema['properties'];
  if (!isJsonObject(properties)) return result;
  for (const [name, property] of Object.entries(properties)) {
    result[name] = isJsonObject(property) ? sampleValue(property, name, depth + 1) : `sample ${name}`;
  }
  return result;
}

/** The declared type, lower-cased (C writes `STRING`); a type list picks its first non-null entry. */
function schemaType(schema: JsonObject): string | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type.toLowerCase();
  if (Array.isArray(type)) {
    const first = type.find((entry) => typeof entry === 'string' && entry.toLowerCase() !== 'null');
    return typeof first === 'string' ? first.toLowerCase() : 'null';
  }
  if (isJsonObject(schema['properties'])) return 'object';
  if ('items' in schema) return 'array';
  return undefined;
}

function firstAlternative(schema: JsonObject): JsonObject | undefined {
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const usable = list.find((entry) => isJsonObject(entry) && !isNullSchema(entry));
    if (isJsonObject(usable)) return usable;
  }
  return undefined;
}

function isNullSchema(schema: JsonObject): boolean {
  return typeof schema['type'] === 'string' && schema['type'].toLowerCase() === 'null';
}

function itemsSchema(schema: JsonObject): JsonObject {
  const items = schema['items'];
  if (isJsonObject(items)) return items;
  if (Array.isArray(items) && isJsonObject(items[0])) return items[0];
  return {};
}
