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
  return renameMessage(body, request, 'body', 0);
}

function renameValue(value: JsonValue, fields: Fields, path: string, depth: number): JsonValue {
  if (isJsonObject(value)) return renameMessage(value, fields, path, depth);
  if (!Array.isArray(value)) return value;
  let out: JsonValue[] | undefined;
  value.forEach((item, index) => {
    const renamed = renameValue(item, fields, `${path}[${index}]`, depth);
    if (renamed !== item) (out ??= [...value])[index] = renamed;
  });
  return out ?? value;
}

function renameMessage(message: JsonObject, fields: Fields, path: string, depth: number): JsonObject {
  if (depth > maxDepth) throw invalidRequest(`${path}: nested too deeply`, path);
  const entries: Array<[string, JsonValue]> = [];
  const spelled = new Map<string, string>();
  let changed = false;
  for (const [key, value] of Object.entries(message)) {
    const name = camelName(key);
    const at = childPath(path, name);
    const other = spelled.get(name);
    if (other !== undefined)
      throw invalidRequest(
        `${at}: given twice, as "${other}" and "${key}" (one field, two spellings: send one)`,
        at,
      );
    spelled.set(name, key);
    const nested = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const renamed = nested === undefined ? value : renameNested(value, nested, at, depth);
    if (name !== key || renamed !== value) changed = true;
    entries.push([name, renamed]);
  }
  if (!changed) return message;
  const out: JsonObject = {};
  for (const [name, value] of entries) setOwn(out, name, value);
  return out;
}

function renameNested(value: JsonValue, nested: Fields | MapOf, path: string, depth: number): JsonValue {
  return isMap(nested)
    ? renameMap(value, nested.mapOf, path, depth)
    : renameValue(value, nested, path, depth + 1);
}

/** A proto map (`properties`): its keys are data, its values messages. */
function renameMap(value: JsonValue, fields: Fields, path: string, depth: number): JsonValue {
  if (!isJsonObject(value)) return value;
  let out: JsonObject | undefined;
  for (const [key, item] of Object.entries(value)) {
    const renamed = renameValue(item, fields, `${path}.${key}`, depth + 1);
    if (renamed !== item) out ??= { ...value };
    if (out !== undefined) setOwn(out, key, renamed);
  }
  return out ?? value;
}

function childPath(path: string, name: string): string {
  return path === 'body' ? name : `${path}.${name}`;
}

/** An own property even for `__proto__` (an assignment would set the object's prototype instead). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
