/**
 * Gemini answers, exported for the Gemini API and Vertex mocks. Shapes as the API returns them
 * (ai.google.dev/api/generate-content#v1beta.GenerateContentResponse; the field set and order of
 * candidates[].content{parts,role}, finishReason, index, usageMetadata{promptTokenCount,
 * candidatesTokenCount, totalTokenCount, promptTokensDetails, thoughtsTokenCount}, modelVersion,
 * responseId as recorded in public clients' response types, e.g. the GenerativeLanguageResponse
 * interface found with the code search).
 */
import {
  argumentsFromSchema,
  countTokens,
  echoReply,
  PrefixCache,
  randomId,
  requestedToolName,
  splitInPieces,
} from '../kit/text.ts';
import { field } from './validate.ts';

interface Part {
  text?: string;
  inlineData?: unknown;
  inline_data?: unknown;
  fileData?: unknown;
  file_data?: unknown;
  functionCall?: unknown;
}
interface Content {
  role?: string;
  parts: Part[];
}
interface FunctionDeclaration {
  name: string;
  parameters?: unknown;
  parametersJsonSchema?: unknown;
}

export type GeminiRequest = Record<string, unknown>;

function contentsOf(request: GeminiRequest): Content[] {
  return (field(request, 'contents') as Content[] | undefined) ?? [];
}

function partTokens(part: Part): number {
  if (part.inlineData ?? part.inline_data ?? part.fileData ?? part.file_data) return 258;
  return countTokens(part.text ?? JSON.stringify(part));
}

function contentTokens(contents: readonly Content[]): number {
  return contents.reduce(
    (sum, content) => sum + content.parts.reduce((inner, part) => inner + partTokens(part), 0),
    0,
  );
}

export function countPromptTokens(request: GeminiRequest): number {
  const system = field(request, 'systemInstruction') as Content | undefined;
  return contentTokens(contentsOf(request)) + (system ? contentTokens([system]) : 0);
}

function declarations(request: GeminiRequest): FunctionDeclaration[] {
  const tools = (field(request, 'tools') as Record<string, unknown>[] | undefined) ?? [];
  return tools.flatMap(
    (tool) => (field(tool, 'functionDeclarations') as FunctionDeclaration[] | undefined) ?? [],
  );
}

function lastUser(request: GeminiRequest): { text: string; sawImage: boolean } {
  const last = [...contentsOf(request)].reverse().find((content) => content.role !== 'model');
  const parts = last?.parts ?? [];
  return {
    text: parts.map((part) => part.text ?? '').join(' '),
    sawImage: parts.some((part) => part.inlineData ?? part.inline_data ?? part.fileData ?? part.file_data),
  };
}

function thinkingBudget(request: GeminiRequest): number | undefined {
  const config = field(request, 'generationConfig') as Record<string, unknown> | undefined;
  const thinking = config && (field(config, 'thinkingConfig') as Record<string, unknown> | undefined);
  const budget = thinking && field(thinking, 'thinkingBudget');
  return typeof budget === 'number' ? budget : undefined;
}

/**
 * Implicit caching: a prompt whose prefix (system, tools and every content but the last) was sent
 * before and holds at least `minimumCachedTokens` is reported as read from cache.
 */
function cachedTokens(
  request: GeminiRequest,
  model: string,
  cache: PrefixCache,
  minimumCachedTokens: number,
): number {
  const contents = contentsOf(request);
  const prefixContents = contents.slice(0, -1);
  const system = field(request, 'systemInstruction') as Content | undefined;
  const prefixTokens = contentTokens(prefixContents) + (system ? contentTokens([system]) : 0);
  if (prefixTokens < minimumCachedTokens) return 0;
  const key = { model, system, tools: field(request, 'tools'), prefixContents };
  return cache.touch(key) === 'read' ? prefixTokens : 0;
}

export interface GeminiAnswerOptions {
  model: string;
  vendor: string;
  cache: PrefixCache;
  minimumCachedTokens: number;
}

export interface GeminiResponse {
  candidates: {
    content: { parts: Record<string, unknown>[]; role: 'model' };
    finishReason?: 'STOP';
    index: number;
  }[];
  usageMetadata: Record<string, unknown>;
  modelVersion: string;
  createTime?: string;
  responseId: string;
}

/** The whole GenerateContentResponse for a valid request. */
export function buildGeminiResponse(request: GeminiRequest, options: GeminiAnswerOptions): GeminiResponse {
  const { text, sawImage } = lastUser(request);
  const offered = declarations(request);
  const toolName = requestedToolName(
    text,
    offered.map((declaration) => declaration.name),
  );
  const tool = offered.find((declaration) => declaration.name === toolName);
  const parts: Record<string, unknown>[] = tool
    ? [
        {
          functionCall: {
            name: tool.name,
            args: argumentsFromSchema(tool.parameters ?? tool.parametersJsonSchema),
          },
        },
      ]
    : [{ text: echoReply(options.vendor, text, sawImage) }];
  const promptTokenCount = countPromptTokens(request);
  const candidatesTokenCount = countTokens(JSON.stringify(parts));
  const cachedContentTokenCount = cachedTokens(
    request,
    options.model,
    options.cache,
    options.minimumCachedTokens,
  );
  // 2.5-and-later models think by default; a zero budget turns it off.
  const thoughtsTokenCount = thinkingBudget(request) === 0 ? 0 : 12;
  const usageMetadata: Record<string, unknown> = {
    promptTokenCount,
    candidatesTokenCount,
    totalTokenCount: promptTokenCount + candidatesTokenCount + thoughtsTokenCount,
    ...(cachedContentTokenCount > 0 ? { cachedContentTokenCount } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokenCount }],
    ...(cachedContentTokenCount > 0
      ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cachedContentTokenCount }] }
      : {}),
    ...(thoughtsTokenCount > 0 ? { thoughtsTokenCount } : {}),
    // Vertex adds how the call was billed (cloud.google.com/vertex-ai/.../GenerateContentResponse#UsageMetadata).
    ...(options.vendor === 'vertex' ? { trafficType: 'ON_DEMAND' } : {}),
  };
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: options.model,
    ...(options.vendor === 'vertex' ? { createTime: new Date().toISOString() } : {}),
    responseId: randomId('', 22),
  };
}

/**
 * The same answer as stream chunks: text in several pieces, a function call whole (Gemini sends it in
 * one chunk); only the last chunk has finishReason, every chunk usageMetadata as the API sends it.
 */
export function geminiStreamChunks(whole: GeminiResponse): GeminiResponse[] {
  const candidate = whole.candidates[0];
  const firstPart = candidate?.content.parts[0];
  const texts = typeof firstPart?.text === 'string' ? splitInPieces(firstPart.text, 3) : [undefined];
  return texts.map((text, index) => {
    const last = index === texts.length - 1;
    const parts = text === undefined ? (candidate?.content.parts ?? []) : [{ text }];
    const { promptTokenCount, promptTokensDetails } = whole.usageMetadata;
    return {
      candidates: [
        {
          content: { parts, role: 'model' as const },
          ...(last ? { finishReason: 'STOP' as const } : {}),
          index: 0,
        },
      ],
      usageMetadata: last
        ? whole.usageMetadata
        : { promptTokenCount, totalTokenCount: promptTokenCount, promptTokensDetails },
      modelVersion: whole.modelVersion,
      ...(whole.createTime === undefined ? {} : { createTime: whole.createTime }),
      responseId: whole.responseId,
    };
  });
}

export const geminiModels = [
  {
    name: 'gemini-2.5-pro',
    displayName: 'Gemini 2.5 Pro',
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
  },
  {
    name: 'gemini-2.5-flash',
    displayName: 'Gemini 2.5 Flash',
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
  },
  {
    name: 'gemini-2.0-flash',
    displayName: 'Gemini 2.0 Flash',
    inputTokenLimit: 1048576,
    outputTokenLimit: 8192,
  },
].map((model) => ({
  name: `models/${model.name}`,
  version: '001',
  displayName: model.displayName,
  description: `Mock of ${model.displayName}`,
  inputTokenLimit: model.inputTokenLimit,
  outputTokenLimit: model.outputTokenLimit,
  supportedGenerationMethods: [
    'generateContent',
    'countTokens',
    'createCachedContent',
    'batchGenerateContent',
  ],
  temperature: 1,
  topP: 0.95,
  topK: 64,
  maxTemperature: 2,
  thinking: model.name.startsWith('gemini-2.5'),
}));
