/**
 * What the real GenerateContent endpoints refuse, with their texts. The ESF JSON parser accepts both
 * the proto names (snake_case) and their JSON names (camelCase); any other name is "Unknown name".
 * Field sets: ai.google.dev/api/generate-content (GenerateContentRequest, GenerationConfig, Part)
 * and cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models/generateContent.
 */

const requestFields = [
  'model',
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
];
/** Vertex's request carries labels and Model Armor settings besides. */
const vertexOnlyFields = ['labels', 'modelArmorConfig'];
const generationConfigFields = [
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'enableEnhancedCivicAnswers',
  'speechConfig',
  'thinkingConfig',
  'imageConfig',
  'mediaResolution',
  'audioTimestamp',
  'routingConfig',
];
const contentFields = ['role', 'parts'];
const partFields = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
];
const countTokensFields = ['contents', 'generateContentRequest'];
const vertexCountTokensFields = [
  'model',
  'contents',
  'instances',
  'systemInstruction',
  'tools',
  'generationConfig',
];

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function bothSpellings(names: readonly string[]): Set<string> {
  return new Set(names.flatMap((name) => [name, snakeCase(name)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a field by either spelling. */
export function field(record: Record<string, unknown>, camelName: string): unknown {
  return record[camelName] ?? record[snakeCase(camelName)];
}

export interface GeminiProblem {
  message: string;
  /** Proto path of the offending field, for the BadRequest detail. */
  field?: string;
}

function unknownName(
  record: Record<string, unknown>,
  allowed: Set<string>,
  at: string,
): GeminiProblem | undefined {
  const extra = Object.keys(record).find((key) => !allowed.has(key));
  if (extra === undefined) return undefined;
  const where = at === '' ? '' : ` at '${at}'`;
  return { message: `Invalid JSON payload received. Unknown name "${extra}"${where}: Cannot find field.` };
}

function checkContents(contents: unknown, at: string, needsRole: boolean): GeminiProblem | undefined {
  if (!Array.isArray(contents))
    return {
      message: `Invalid value at '${at}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), must be a list`,
    };
  for (const [index, content] of contents.entries()) {
    const where = `${at}[${index}]`;
    if (!isRecord(content)) return { message: `Invalid value at '${where}'` };
    const problem = unknownName(content, bothSpellings(contentFields), where);
    if (problem) return problem;
    const role = content.role;
    if (needsRole && role !== 'user' && role !== 'model')
      return { message: 'Please use a valid role: user, model.' };
    if (role !== undefined && role !== 'user' && role !== 'model' && role !== 'function')
      return { message: 'Please use a valid role: user, model.' };
    const parts = content.parts;
    if (!Array.isArray(parts) || parts.length === 0)
      return { message: `* GenerateContentRequest.${where}.parts: contents.parts must not be empty.\n` };
    for (const [partIndex, part] of (parts as unknown[]).entries()) {
      const partAt = `${where}.parts[${partIndex}]`;
      if (!isRecord(part)) return { message: `Invalid value at '${partAt}'` };
      const unknown = unknownName(part, bothSpellings(partFields), partAt);
      if (unknown) return unknown;
      const inline = field(part, 'inlineData');
      if (isRecord(inline)) {
        const rawData = field(inline, 'data');
        const data = typeof rawData === 'string' ? rawData : JSON.stringify(rawData);
        if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(data)) {
          return {
            message: `Invalid value at '${partAt}.inline_data.data' (TYPE_BYTES), Base64 decoding failed for "${data.slice(0, 40)}"`,
            field: `${partAt}.inline_data.data`,
          };
        }
        if (typeof field(inline, 'mimeType') !== 'string')
          return {
            message: `* GenerateContentRequest.${partAt}.inline_data.mime_type: mime_type is not specified\n`,
          };
      }
    }
  }
  return undefined;
}

export interface GeminiCheckOptions {
  vertex: boolean;
}

/** The first problem of a generateContent / streamGenerateContent body, or undefined. */
export function generateContentProblem(
  body: unknown,
  options: GeminiCheckOptions,
): GeminiProblem | undefined {
  if (!isRecord(body)) return { message: 'Invalid JSON payload received. Expected an object.' };
  const allowed = bothSpellings(options.vertex ? [...requestFields, ...vertexOnlyFields] : requestFields);
  const unknown = unknownName(body, allowed, '');
  if (unknown) return unknown;
  const config = field(body, 'generationConfig');
  if (isRecord(config)) {
    const problem = unknownName(config, bothSpellings(generationConfigFields), 'generation_config');
    if (problem) return problem;
  }
  const contents = field(body, 'contents');
  if (contents === undefined || (Array.isArray(contents) && contents.length === 0)) {
    return { message: '* GenerateContentRequest.contents: contents is not specified\n' };
  }
  const system = field(body, 'systemInstruction');
  if (isRecord(system)) {
    const problem = checkContents([{ role: 'user', ...system }], 'system_instruction', false);
    if (problem) return problem;
  }
  return checkContents(contents, 'contents', options.vertex);
}

/** The first problem of a countTokens body, or undefined. */
export function countTokensProblem(body: unknown, options: GeminiCheckOptions): GeminiProblem | undefined {
  if (!isRecord(body)) return { message: 'Invalid JSON payload received. Expected an object.' };
  const unknown = unknownName(
    body,
    bothSpellings(options.vertex ? vertexCountTokensFields : countTokensFields),
    '',
  );
  if (unknown) return unknown;
  const inner = field(body, 'generateContentRequest');
  if (isRecord(inner)) return generateContentProblem(inner, options);
  if (field(body, 'contents') === undefined)
    return { message: '* CountTokensRequest.contents: contents is not specified\n' };
  return checkContents(field(body, 'contents'), 'contents', options.vertex);
}

export function isGeminiModel(model: string): boolean {
  return /^gemini-[a-z0-9.-]+$/.test(model);
}
