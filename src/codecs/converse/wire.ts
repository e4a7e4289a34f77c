/**
 * The Bedrock Converse API's official shapes (`POST /model/{modelId}/converse` and
 * `/converse-stream`), as the AWS API reference and `@aws-sdk/client-bedrock-runtime` spell them.
 * Only the parts the codec reads or writes are typed.
 */
import type { JsonObject } from '../../ir/index.ts';

export type ConverseRole = 'user' | 'assistant';

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ConverseCachePoint {
  cachePoint: { type: 'default' };
}

export type ConverseToolResultContent = { text: string } | ConverseImageBlock;

export interface ConverseImageBlock {
  image: { format: ConverseImageFormat; source: { bytes: string } };
}

export type ConverseContentBlock =
  | { text: string }
  | ConverseImageBlock
  | { toolUse: { toolUseId: string; name: string; input: JsonObject } }
  | {
      toolResult: {
        toolUseId: string;
        content: ConverseToolResultContent[];
        status?: 'success' | 'error';
      };
    }
  | ConverseCachePoint;

export interface ConverseMessage {
  role: ConverseRole;
  content: ConverseContentBlock[];
}

export interface ConverseTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: JsonObject } };
}

export type ConverseToolChoice = { auto: JsonObject } | { any: JsonObject } | { tool: { name: string } };

export interface ConverseInferenceConfig {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: Array<{ text: string } | ConverseCachePoint>;
  inferenceConfig?: ConverseInferenceConfig;
  toolConfig?: { tools: Array<ConverseTool | ConverseCachePoint>; toolChoice?: ConverseToolChoice };
  additionalModelRequestFields?: JsonObject;
}

export type ConverseStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'model_context_window_exceeded';

export interface ConverseUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** The in-stream exceptions ConverseStream may send instead of an event. */
export const streamExceptions = {
  internalServerException: 500,
  modelStreamErrorException: 424,
  validationException: 400,
  throttlingException: 429,
  serviceUnavailableException: 503,
} as const;

/** `/model/{id}/converse` or `/converse-stream`; the id may be an ARN, so it is percent-encoded. */
export function conversePath(model: string, stream: boolean): string {
  return `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`;
}
