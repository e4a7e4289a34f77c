/**
 * Family C's API is protobuf-JSON: every field may be spelled in lowerCamelCase or as its proto
 * (snake_case) name, and the family's Python SDK sends both in one body (it writes the outer
 * fields camelCase and dumps some nested objects with their Python names:
 * `{"inlineData": {"mime_type": …}}`, `{"functionDeclarations": [{"parameters_json_schema": …}]}`,
 * `{"thinkingConfig": {"thinking_budget": …}}`). One step at decode time renames every proto
 * field to its camelCase name, so the decoders read one spelling.
 *
 * The walk follows the proto's message tree only (the tables below): the keys of free-form JSON
 * (`functionCall.args`, `functionResponse.response`, `parametersJsonSchema`, `responseJsonSchema`,
 * a Schema's property names) are the client's own data and are never renamed. A field outside
 * the tables has its own name renamed but its value left as sent.
 *
 * Both spellings of one field in one object is a 400, as the proto JSON parsers refuse it
 * (protojson: "duplicate field"; protobuf-java's JsonFormat: "has already been set").
 *
 * The input is never changed (a same-family call forwards the client's own body): an object is
 * copied only where something in it is renamed.
 */
import { invalidRequest, isJsonObject, type JsonObject, type JsonValue } from '../../ir/index.ts';

/** A message's fields that hold other messages, by camelCase name; `mapOf`: a map whose values are messages. */
interface Fields {
  readonly [camelName: string]: Fields | MapOf;
}

interface MapOf {
  readonly mapOf: Fields;
}

/** No proto message in the tables has a field called `mapOf`. */
function isMap(nested: Fields | MapOf): nested is MapOf {
  return Object.hasOwn(nested, 'mapOf');
}

/** The proto JSON parsers' own nesting is bounded by the body reader (128); this keeps the walk bounded by itself. */
const maxDepth = 128;

const noMessages: Fields = {};

/** `Schema`: its properties are a map of property name → Schema; items and anyOf nest. */
const schema: Record<string, Fields | MapOf> = {};
schema.properties = { mapOf: schema };
schema.items = schema;
schema.anyOf = schema;

const part: Fields = {
  inlineData: noMessages,
  fileData: noMessages,
  functionCall: noMessages,
  functionResponse: { parts: { inlineData: noMessages, fileData: noMessages } },
  executableCode: noMessages,
  codeExecutionResult: noMessages,
  videoMetadata: noMessages,
};

const content: Fields = { parts: part };

const voiceConfig: Fields = { prebuiltVoiceConfig: noMessages };

const generationConfig: Fields = {
  responseSchema: schema,
  thinkingConfig: noMessages,
  imageConfig: noMessages,
  speechConfig: {
    voiceConfig,
    multiSpeakerVoiceConfig: { speakerVoiceConfigs: { voiceConfig } },
  },
};

const tool: Fields = {
  functionDeclarations: { parameters: schema, response: schema },
  googleSearch: { timeRangeFilter: noMessages },
  googleSearchRetrieval: { dynamicRetrievalConfig: noMessages },
  codeExecution: noMessages,
  urlContext: noMessages,
  computerUse: noMessages,
  fileSearch: noMessages,
  googleMaps: noMessages,
};

/** `GenerateContentRequest`. */
const request: Fields = {
  contents: content,
  systemInstruction: content,
  generationConfig,
  safetySettings: noMessages,
  tools: tool,
  toolConfig: { functionCallingConfig: noMessages, retrievalConfig: { latLng: noMessages } },
};

/** A proto field name: lower-case words joined by `_` (what protoc's JSON name is made from). */
const protoName = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

export function camelName(name: string): string {
  return protoName.test(name)
    ? name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())
    : name;
}

/** The request body with every proto field camelCase; the same object when nothing needed renaming. */
export function camelCaseRequest(body: JsonObject): JsonObject {
  return renameMessage(body, request, undefined, 0);
}

/** Where a value sits, built into a path string only for an error message. */
interface Trail {
  readonly up: Trail | undefined;
  readonly step: string | number;
}

function pathOf(trail: Trail | undefined): string {
  if (trail === undefined) return 'body';
  const steps: Array<string | number> = [];
  for (let at: Trail | undefined = trail; at !== undefined; at = at.up) steps.push(at.step);
  return steps
    .reverse()
    .map((step, index) => (typeof step === 'number' ? `[${step}]` : index === 0 ? step : `.${step}`))
    .join('');
}

function renameValue(value: JsonValue, fields: Fields, trail: Trail | undefined, depth: number): JsonValue {
  if (isJsonObject(value)) return renameMessage(value, fields, trail, depth);
  if (!Array.isArray(value)) return value;
  let out: JsonValue[] | undefined;
  value.forEach((item, index) => {
    const renamed = renameValue(item, fields, { up: trail, step: index }, depth);
    if (renamed !== item) (out ??= [...value])[index] = renamed;
  });
  return out ?? value;
}

function renameMessage(
  message: JsonObject,
  fields: Fields,
  trail: Trail | undefined,
  depth: number,
): JsonObject {
  if (depth > maxDepth) {
    const path = pathOf(trail);
    throw invalidRequest(`${path}: nested too deeply`, path);
  }
  // Only a renamed key can meet another spelling of itself (JSON.parse keeps one of equal keys).
  let renamedFrom: Map<string, string> | undefined;
  // Copied from the first change on; the keys before it are the client's, unchanged.
  let out: JsonObject | undefined;
  const keys = Object.keys(message);
  keys.forEach((key, index) => {
    const value = message[key] as JsonValue;
    const name = camelName(key);
    if (name !== key) {
      renamedFrom ??= new Map();
      const other = Object.hasOwn(message, name) ? name : renamedFrom.get(name);
      if (other !== undefined) twoSpellings(pathOf({ up: trail, step: name }), other, key);
      renamedFrom.set(name, key);
    }
    const nested = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const renamed =
      nested === undefined ? value : renameNested(value, nested, { up: trail, step: name }, depth);
    if (out === undefined && (name !== key || renamed !== value)) {
      out = {};
      for (const earlier of keys.slice(0, index)) setOwn(out, earlier, message[earlier] as JsonValue);
    }
    if (out !== undefined) setOwn(out, name, renamed);
  });
  return out ?? message;
}

function twoSpellings(path: string, first: string, second: string): never {
  throw invalidRequest(
    `${path}: given twice, as "${first}" and "${second}" (one field, two spellings: send one)`,
    path,
  );
}

function renameNested(value: JsonValue, nested: Fields | MapOf, trail: Trail, depth: number): JsonValue {
  return isMap(nested)
    ? renameMap(value, nested.mapOf, trail, depth)
    : renameValue(value, nested, trail, depth + 1);
}

/** A proto map (`properties`): its keys are data, its values messages. */
function renameMap(value: JsonValue, fields: Fields, trail: Trail, depth: number): JsonValue {
  if (!isJsonObject(value)) return value;
  let out: JsonObject | undefined;
  for (const [key, item] of Object.entries(value)) {
    const renamed = renameValue(item, fields, { up: trail, step: key }, depth + 1);
    if (renamed !== item) out ??= { ...value };
    if (out !== undefined) setOwn(out, key, renamed);
  }
  return out ?? value;
}

/** An own property even for `__proto__` (an assignment would set the object's prototype instead). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
