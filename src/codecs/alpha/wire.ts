/**
 * TypeScript shapes of the Family A wire objects the codec builds. Inputs are read field by field
 * with the shared validators (clients and OpenAI-compatible servers send looser shapes than these).
 * Type aliases, not interfaces, so the shapes stay assignable to `JsonObject`.
 */
import type { JsonObject } from '../../ir/index.ts';

export type AlphaToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
};

export type AlphaFunctionCall = { name: string; arguments: string };

export type AlphaTextPart = { type: 'text'; text: string };

export type AlphaImagePart = { type: 'image_url'; image_url: { url: string; detail?: string } };

export type AlphaUserPart = AlphaTextPart | AlphaImagePart;

export type AlphaUserContent = string | AlphaUserPart[];

export type AlphaMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: AlphaUserContent }
  | { role: 'assistant'; content: string | AlphaTextPart[] | null; tool_calls?: AlphaToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type AlphaTool = {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonObject; strict?: boolean };
};

export type AlphaToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type AlphaUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
  /** The project spec's flat field, sent besides the SDK's nested one when a cache was hit. */
  cached_tokens?: number;
};

export type AlphaFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export type AlphaResponseMessage = {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: AlphaToolCall[];
  function_call?: AlphaFunctionCall;
};

/** `delta` of a `chat.completion.chunk` choice. */
export type AlphaDelta = {
  role?: 'assistant';
  content?: string;
  tool_calls?: Array<{
    index: number;
    id?: string;
    type?: 'function';
    function: { name?: string; arguments: string };
  }>;
  function_call?: { name?: string; arguments: string };
};

export type AlphaErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null };
};

export const chatCompletionsPath = '/v1/chat/completions';
