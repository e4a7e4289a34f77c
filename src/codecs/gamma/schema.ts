/**
 * Tool parameter schemas. C speaks an OpenAPI-3.0 subset (`Schema`): UPPER-case `type`, `nullable`,
 * string-only `enum`, and a fixed key list; any other key is a 400 "Unknown name … Cannot find field".
 *
 * Encoder approach (JSON Schema → C): WHITELIST + REWRITE into `parameters`, not `parametersJsonSchema`
 * (whose accepted keywords the family does not document). Keys C lacks are rewritten where a close
 * equivalent exists (type arrays with null / null members of anyOf → `nullable`, oneOf → anyOf, allOf
 * merged, const → enum, exclusive bounds → inclusive, local `$ref` inlined). Refinements that only
 * narrow what is valid are relaxed (dropped): additionalProperties, $schema, $id, patternProperties,
 * propertyNames, multipleOf, uniqueItems, not, if/then/else, non-string enums… — the model's
 * arguments still have the client's shape. Schema drops are not reported as warnings: every A
 * strict-mode tool carries `additionalProperties:false`, so a warning would fire on nearly every
 * translated request. What C cannot state at all is a 400 naming the place, before anything goes
 * upstream: a root that is not an object, a recursive or non-local `$ref`, tuples (`prefixItems`,
 * `items` as a list) and a lone `type: "null"`.
 *
 * Decoder (C → IR): lower-case the types and turn `nullable` into a JSON Schema type array.
 */
import { invalidRequest, isJsonObject, type JsonObject, type JsonValue } from '../../ir/index.ts';

const maxDepth = 64;

/** Keys C accepts that need no rewriting. */
const plainKeys: ReadonlySet<string> = new Set([
  'title',
  'description',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
  'propertyOrdering',
  'default',
  'example',
]);

/** C rejects other `format` values ("only 'enum' and 'date-time' are supported for STRING type"). */
const allowedFormats: ReadonlySet<string> = new Set([
  'enum',
  'date-time',
  'int32',
  'int64',
  'float',
  'double',
]);

function tooDeep(depth: number): void {
  if (depth > maxDepth) throw invalidRequest('tools: parameter schema is nested too deeply', 'tools');
}

// ---------------------------------------------------------------- C → JSON Schema (decoder side)

export function normaliseGammaSchema(schema: JsonValue, depth = 0): JsonValue {
  tooDeep(depth);
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'format' && value === 'enum') continue;
    else if ((key === 'items' || key === 'anyOf') && value !== null) out[key] = normaliseEach(value, depth);
    else if (key === 'properties' && isJsonObject(value)) out.properties = normaliseProperties(value, depth);
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function normaliseEach(value: JsonValue, depth: number): JsonValue {
  return Array.isArray(value)
    ? value.map((item) => normaliseGammaSchema(item, depth + 1))
    : normaliseGammaSchema(value, depth + 1);
}

function normaliseProperties(properties: JsonObject, depth: number): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(properties)) out[name] = normaliseGammaSchema(value, depth + 1);
  return out;
}

// ---------------------------------------------------------------- JSON Schema → C (encoder side)

interface SanitiseState {
  definitions: JsonObject;
  /** Definitions being inlined on the current path: meeting one again means recursion. */
  expanding: readonly string[];
}

function cannotExpress(path: string, what: string): never {
  throw invalidRequest(`${path}: gamma models cannot express ${what} in tool parameters`, path);
}

/**
 * `parameters` for a function declaration; undefined when the tool takes no arguments (C rejects
 * empty OBJECT properties). `path` names the schema in 400 messages (e.g. `tools[0].parameters`).
 */
export function sanitiseParameters(schema: JsonObject, path = 'parameters'): JsonObject | undefined {
  if (schema.type !== undefined && schema.type !== 'object' && schema.type !== 'OBJECT') {
    cannotExpress(`${path}.type`, `a ${JSON.stringify(schema.type)} root (arguments are an object)`);
  }
  const definitions: JsonObject = {
    ...(isJsonObject(schema.definitions) ? schema.definitions : {}),
    ...(isJsonObject(schema.$defs) ? schema.$defs : {}),
  };
  const out = sanitise(schema, { definitions, expanding: [] }, 0, path);
  out.type = 'OBJECT';
  if (out.properties === undefined) return undefined;
  return out;
}

function sanitise(schema: JsonObject, state: SanitiseState, depth: number, path: string): JsonObject {
  if (depth > maxDepth) throw invalidRequest(`${path}: parameter schema is nested too deeply`, path);
  const resolved = resolveRef(schema, state, depth, path);
  if (resolved !== undefined) return resolved;
  if (schema.prefixItems !== undefined || Array.isArray(schema.items)) {
    cannotExpress(path, 'tuples (prefixItems or items as a list)');
  }
  if (schema.type === 'null') cannotExpress(`${path}.type`, 'a value that can only be null');
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (plainKeys.has(key)) out[key] = value;
    else applyKey(out, key, value, state, depth, path);
  }
  if (out.enum !== undefined && out.type === undefined) out.type = 'STRING';
  if (Array.isArray(out.required) && isJsonObject(out.properties)) {
    const properties = out.properties;
    out.required = out.required.filter((name) => typeof name === 'string' && Object.hasOwn(properties, name));
  }
  return out;
}

/** `$ref: "#/$defs/X"` (or `#/definitions/X`) is inlined, sibling keys winning; anything else is a 400. */
function resolveRef(
  schema: JsonObject,
  state: SanitiseState,
  depth: number,
  path: string,
): JsonObject | undefined {
  const ref = schema.$ref;
  if (ref === undefined) return undefined;
  const match = typeof ref === 'string' ? localRef.exec(ref) : null;
  const name = match?.[2];
  if (name === undefined)
    cannotExpress(
      `${path}.$ref`,
      `the reference ${JSON.stringify(ref)} (only #/$defs/… and #/definitions/… are inlined)`,
    );
  const target = state.definitions[name];
  if (!isJsonObject(target))
    cannotExpress(`${path}.$ref`, `the reference ${JSON.stringify(ref)}: no such definition`);
  if (state.expanding.includes(name))
    cannotExpress(`${path}.$ref`, `the recursive definition ${JSON.stringify(name)}`);
  const { $ref: _ref, ...siblings } = schema;
  const inner = sanitise(
    target,
    { definitions: state.definitions, expanding: [...state.expanding, name] },
    depth + 1,
    path,
  );
  return Object.keys(siblings).length === 0
    ? inner
    : { ...inner, ...sanitise(siblings, state, depth + 1, path) };
}

const localRef = /^#\/(\$defs|definitions)\/([^/]+)$/;

function applyKey(
  out: JsonObject,
  key: string,
  value: JsonValue,
  state: SanitiseState,
  depth: number,
  path: string,
): void {
  switch (key) {
    case 'type':
      applyType(out, value);
      return;
    case 'nullable':
      if (value === true) out.nullable = true;
      return;
    case 'format':
      if (typeof value === 'string' && allowedFormats.has(value)) out.format = value;
      return;
    case 'enum':
      // C enums hold strings only; a numeric enum is relaxed to its type.
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) out.enum = value;
      return;
    case 'const':
      if (typeof value === 'string') out.enum = [value];
      return;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      applyExclusiveBound(out, key, value);
      return;
    case 'required':
      if (Array.isArray(value)) out.required = value;
      return;
    default:
      applyNested(out, key, value, state, depth, path);
  }
}

function applyNested(
  out: JsonObject,
  key: string,
  value: JsonValue,
  state: SanitiseState,
  depth: number,
  path: string,
): void {
  if (key === 'properties' && isJsonObject(value)) {
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(value)) {
      if (isJsonObject(property))
        properties[name] = sanitise(property, state, depth + 1, `${path}.properties.${name}`);
    }
    if (Object.keys(properties).length > 0) out.properties = properties;
  } else if (key === 'items' && isJsonObject(value)) {
    out.items = sanitise(value, state, depth + 1, `${path}.items`);
  } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
    applyAnyOf(out, value, state, depth, `${path}.${key}`);
  } else if (key === 'allOf' && Array.isArray(value)) {
    value.forEach((member, position) => {
      if (isJsonObject(member))
        mergeInto(out, sanitise(member, state, depth + 1, `${path}.allOf[${position}]`));
    });
  }
  // Everything else (additionalProperties, $schema, $defs, patternProperties, …) is dropped.
}

/** `["string","null"]` → STRING + nullable; several non-null types → anyOf of single types. */
function applyType(out: JsonObject, value: JsonValue): void {
  if (typeof value === 'string') {
    if (value === 'null') out.nullable = true;
    else out.type = value.toUpperCase();
    return;
  }
  if (!Array.isArray(value)) return;
  const types = value.filter((item): item is string => typeof item === 'string' && item !== 'null');
  if (types.length < value.length) out.nullable = true;
  if (types.length === 1 && types[0] !== undefined) out.type = types[0].toUpperCase();
  else if (types.length > 1) out.anyOf = types.map((type) => ({ type: type.toUpperCase() }));
}

/** Null members become `nullable`; a single remaining member is merged into the parent. */
function applyAnyOf(
  out: JsonObject,
  members: JsonValue[],
  state: SanitiseState,
  depth: number,
  path: string,
): void {
  const kept: JsonObject[] = [];
  members.forEach((member, position) => {
    if (!isJsonObject(member)) return;
    if (member.type === 'null') out.nullable = true;
    else kept.push(sanitise(member, state, depth + 1, `${path}[${position}]`));
  });
  if (kept.length === 1 && kept[0] !== undefined) mergeInto(out, kept[0]);
  else if (kept.length > 1) out.anyOf = kept;
}

/** Shallow merge for allOf / single-member anyOf: properties and required are unioned, the rest fills gaps. */
function mergeInto(out: JsonObject, member: JsonObject): void {
  for (const [key, value] of Object.entries(member)) {
    const current = out[key];
    if (key === 'properties' && isJsonObject(current) && isJsonObject(value))
      out[key] = { ...current, ...value };
    else if (key === 'required' && Array.isArray(current) && Array.isArray(value))
      out[key] = [...current, ...value];
    else if (current === undefined) out[key] = value;
  }
}

/** Lossy but safe: an exclusive bound becomes the inclusive one unless that is already set. */
function applyExclusiveBound(out: JsonObject, key: string, value: JsonValue): void {
  if (typeof value !== 'number') return;
  const target = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
  if (out[target] === undefined) out[target] = value;
}
