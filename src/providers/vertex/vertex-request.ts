/**
 * A codec's upstream request as Vertex AI takes it: the publisher model's URL (the model and the
 * method in the path), a bearer token instead of the family's key header, and for Anthropic models
 * the body Vertex wants (no `model`, `anthropic_version: "vertex-2023-10-16"`).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/index.ts';
import type { UpstreamCall, UpstreamRequest } from '../../codecs/codec.ts';

export const vertexAnthropicVersion = 'vertex-2023-10-16';

/** Claude models (`claude-sonnet-4-5`, `claude-sonnet-4-5@20250929`) are Anthropic's publisher models. */
export function isClaudeModel(model: string): boolean {
  return model.startsWith('claude-');
}

/** The codecs' own credential and version headers: Vertex takes a bearer token and the version in the body. */
const droppedHeaders: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'x-gamma-api-key',
  'beta-version',
  'anthropic-version',
]);

/** `@` stays as it is: Vertex names model versions `claude-…@20250929`. */
function pathSegment(value: string): string {
  return encodeURIComponent(value).replaceAll('%40', '@');
}

/** Gemini's count path names the operation; everything else is read from the call. */
const gammaPath = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)/;

/**
 * What the call is: the codecs set `call`; until every codec does, it is read from the path (C)
 * or the body (B) — a safety net, not the hot path.
 */
export function callOf(request: UpstreamRequest): UpstreamCall {
  if (request.call !== undefined) return request.call;
  const gamma = gammaPath.exec(request.path);
  if (gamma !== null) {
    return {
      model: decodeURIComponent(gamma[1] ?? ''),
      stream: gamma[2] === 'streamGenerateContent',
      operation: gamma[2] === 'countTokens' ? 'count-tokens' : 'chat',
    };
  }
  const body = parseBody(request.body);
  return {
    model: typeof body.model === 'string' ? body.model : '',
    stream: body.stream === true,
    operation: request.path.endsWith('/count_tokens') ? 'count-tokens' : 'chat',
  };
}

function parseBody(body: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(body);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export interface VertexPlacement {
  readonly project: string;
  readonly location: string;
}

function headersWithToken(request: UpstreamRequest, token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (!droppedHeaders.has(name.toLowerCase())) headers[name] = value;
  headers.authorization = `Bearer ${token}`;
  return headers;
}

/** Vertex refuses a content without a role; the family's default for a missing one is `user`. */
function withRoles(contents: JsonValue | undefined): JsonValue {
  if (contents === undefined) return [];
  if (!Array.isArray(contents)) return contents;
  return contents.map((content) =>
    isJsonObject(content) && content.role === undefined ? { role: 'user', ...content } : content,
  );
}

/** What Vertex's countTokens takes of the full request form, in both spellings. */
const countedFields = [
  'systemInstruction',
  'system_instruction',
  'tools',
  'generationConfig',
  'generation_config',
];

/**
 * Vertex's countTokens takes the request's fields at the top level (no `generateContentRequest`,
 * whose `models/…` name Vertex would refuse), and roles like generateContent.
 */
function vertexCountBody(text: string): string {
  const body = parseBody(text);
  // Either proto-JSON spelling, as the client wrote it (the family's surface read both).
  const inner = [body.generateContentRequest, body.generate_content_request].find(isJsonObject);
  const flat: JsonObject = inner === undefined ? { ...body } : { contents: inner.contents ?? [] };
  if (inner !== undefined)
    for (const field of countedFields) {
      const value = inner[field];
      if (value !== undefined) flat[field] = value;
    }
  delete flat.model;
  flat.contents = withRoles(flat.contents);
  return JSON.stringify(flat);
}

/** The B body as Vertex takes it: no `model` (the URL names it), Vertex's own version. */
function vertexAnthropicBody(text: string, keepModel: boolean): string {
  const body = parseBody(text);
  if (!keepModel) delete body.model;
  body.anthropic_version = vertexAnthropicVersion;
  return JSON.stringify(body);
}

export function toVertexRequest(
  request: UpstreamRequest,
  placement: VertexPlacement,
  token: string,
): UpstreamRequest {
  const call = callOf(request);
  const parent = `/v1/projects/${pathSegment(placement.project)}/locations/${pathSegment(placement.location)}`;
  const headers = headersWithToken(request, token);
  if (isClaudeModel(call.model)) {
    // count-tokens:rawPredict names the model in the body: it has none in its URL.
    const counting = call.operation === 'count-tokens';
    const method = counting
      ? 'count-tokens:rawPredict'
      : `${pathSegment(call.model)}:${call.stream ? 'streamRawPredict' : 'rawPredict'}`;
    return {
      ...request,
      path: `${parent}/publishers/anthropic/models/${method}`,
      headers,
      body: vertexAnthropicBody(request.body, counting),
    };
  }
  const model = `${parent}/publishers/google/models/${pathSegment(call.model)}`;
  if (call.operation === 'count-tokens')
    return { ...request, path: `${model}:countTokens`, headers, body: vertexCountBody(request.body) };
  const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { ...request, path: `${model}:${method}`, headers };
}
