/**
 * TypeScript shapes of the Family C (generate-content) wire objects this codec builds. Written as
 * type aliases (not interfaces) so they are assignable to `JsonObject`. Decoders read `unknown`
 * through the shared validators instead, since client and upstream input is untrusted.
 */
import type { JsonObject } from '../../ir/index.ts';

export type GammaRole = 'user' | 'model';

export type GammaFunctionCall = { name: string; args: JsonObject; id?: string };

export type GammaFunctionResponse = { name: string; response: JsonObject; id?: string };

export type GammaPart =
  | { text: string }
  /** A thought (the family's thought summary), shown when the request asked to include thoughts. */
  | { text: string; thought: true; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { fileUri: string; mimeType?: string } }
  | { functionCall: GammaFunctionCall; thoughtSignature?: string }
  | { functionResponse: GammaFunctionResponse };

export type GammaContent = { role: GammaRole; parts: GammaPart[] };

export type GammaFunctionDeclaration = { name: string; description?: string; parameters?: JsonObject };

/**
 * Extension keys (`functionDeclarations.response`, tool name → value) of a client's declaration
 * fields the canonical tool has no slot for: the encoder puts them back on a C declaration.
 */
export const declarationExtraPrefix = 'functionDeclarations.';

export type GammaFunctionCallingConfig = {
  mode: 'AUTO' | 'ANY' | 'NONE';
  allowedFunctionNames?: string[];
};

export type GammaUsageMetadata = {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
};

export type GammaCandidate = {
  content: { role: 'model'; parts: GammaPart[] };
  finishReason?: string;
  finishMessage?: string;
  index: number;
};

export type GammaGenerateContentResponse = {
  candidates: GammaCandidate[];
  usageMetadata?: GammaUsageMetadata;
  modelVersion: string;
  responseId: string;
};

/** `{error:{code,message,status}}` (google.rpc.Status as JSON). */
export type GammaErrorBody = {
  error: { code: number; message: string; status: string; details?: JsonObject[] };
};
